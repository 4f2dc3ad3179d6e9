import assert from "node:assert/strict";
import { it } from "node:test";
import * as ext from "../lsp_ext";

// The names are the protocol contract (docs/protocol.md): a rename here would
// silently break the extension against the server.
it("uses the protocol's method and command names", () => {
  assert.equal(ext.proposals.method, "agentls/proposals");
  assert.equal(ext.document.method, "agentls/document");
  assert.equal(ext.runEvent.method, "agentls/runEvent");
  assert.equal(ext.proposalsChanged.method, "agentls/proposalsChanged");
  assert.equal(ext.models.method, "agentls/models");
  assert.equal(ext.sessions.method, "agentls/sessions");
  assert.deepEqual(ext.Commands, {
    run: "agentls.run",
    cancel: "agentls.cancel",
    accept: "agentls.accept",
    reject: "agentls.reject",
    approvePlan: "agentls.approvePlan",
    revert: "agentls.revert",
    openReport: "agentls.openReport",
    remember: "agentls.remember",
  });
});
