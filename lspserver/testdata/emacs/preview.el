;;; preview.el --- eglot review check for agentls  -*- lexical-binding: t; -*-
;;
;; Run by eglot_test.go: `emacs --batch -Q -l preview.el'.  Plain Emacs 30
;; with its built-in eglot, no plugin: starts the agentls binary, runs an
;; agent task in preview mode (the model is a scripted server), then checks
;; what an eglot user sees before deciding: flymake's diagnostics hold the
;; proposed change (eglot shows no code lenses), and hover (eldoc) holds
;; its diff.  The change is then accepted through eglot's own code action
;; path, and the diagnostic must go away.
;;
;; Environment: AGENTLS_BIN, AGENTLS_FILE, AGENTLS_RESULT, AGENTLS_MODEL_URL.
;; The report's first line is "OK" or "FAIL"; the rest explains.

(require 'eglot)
(require 'flymake)
(require 'cl-lib)

(defvar agentls-report nil)
(defvar agentls-failed nil)

(defun agentls-log (fmt &rest args)
  (push (apply #'format fmt args) agentls-report))

(defun agentls-fail (fmt &rest args)
  (setq agentls-failed t)
  (push (concat "FAIL: " (apply #'format fmt args)) agentls-report))

(defun agentls-finish ()
  (with-temp-file (getenv "AGENTLS_RESULT")
    (insert (if agentls-failed "FAIL" "OK") "\n"
            (mapconcat #'identity (reverse agentls-report) "\n") "\n"))
  (kill-emacs 0))

(defun agentls-wait (what pred &optional seconds)
  "Wait up to SECONDS (default 30) for PRED, processing server output."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      ;; What Emacs does when idle, which a batch Emacs never is: eglot
      ;; sends pending didChange from an idle timer, flymake starts its
      ;; backends from one.
      (when (eglot-managed-p) (eglot--signal-textDocument/didChange))
      (when (bound-and-true-p flymake-mode) (flymake-start)))
    (or (funcall pred) (error "timed out waiting for %s" what))))

(defun agentls-diags ()
  "The agentls diagnostics flymake holds in the current buffer, by position."
  (sort (cl-remove-if-not
         (lambda (d) (string-match-p "agentls" (flymake-diagnostic-text d)))
         (flymake-diagnostics))
        (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b)))))

(defvar agentls-end-message nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (when (string-prefix-p "Agent run " message)
    (setq agentls-end-message message)))

(defvar agentls-run-end nil)
(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentls/runEvent)) &key kind &allow-other-keys)
  (when (member kind '("finished" "failed" "cancelled"))
    (setq agentls-run-end kind)))

(defun agentls-run ()
  (let* ((bin (getenv "AGENTLS_BIN"))
         (file (getenv "AGENTLS_FILE"))
         (url (getenv "AGENTLS_MODEL_URL")))
    (setq eglot-server-programs
          `((text-mode . (,bin "serve" :initializationOptions
                               (:model (:baseURL ,url :name "test-model") :mode "preview"
                                :checks [(:name "notes" :command "grep -q goodbye notes.txt")])))))
    (setq eglot-sync-connect t eglot-events-buffer-config '(:size 0))
    (find-file file)
    (text-mode)
    (apply #'eglot (eglot--guess-contact))
    (agentls-wait "eglot" (lambda () (eglot-managed-p)))
    (agentls-log "eglot: managed by %s" (plist-get (eglot--server-info (eglot-current-server)) :name))
    (let ((server (eglot-current-server))
          (uri (eglot-path-to-uri (buffer-file-name)))
          (before (buffer-string)))
      ;; 1. An agent run in preview mode.
      (jsonrpc-request server :workspace/executeCommand
                       `(:command "agentls.run"
                         :arguments [(:prompt "Say goodbye." :uri ,uri)]))
      (agentls-wait "the run" (lambda () agentls-run-end))
      (agentls-log "run: %s" agentls-run-end)
      ;; The end message is all a plugin-less client hears of the checks.
      (agentls-wait "the end message" (lambda () agentls-end-message))
      (agentls-log "end message: %s" agentls-end-message)
      ;; 2. Before deciding: flymake shows the change.
      (agentls-wait "flymake diagnostics" (lambda () (agentls-diags)))
      (dolist (d (agentls-diags))
        (agentls-log "flymake: line %d %s: %s"
                     (line-number-at-pos (flymake-diagnostic-beg d))
                     (flymake-diagnostic-type d)
                     (flymake-diagnostic-text d)))
      (unless (equal (buffer-string) before)
        (agentls-fail "the buffer changed before any accept"))
      (let* ((d (car (agentls-diags)))
             (pos (flymake-diagnostic-beg d))
             (hover (jsonrpc-request server :textDocument/hover
                                     `(:textDocument (:uri ,uri)
                                       :position ,(save-excursion (goto-char pos) (eglot--pos-to-lsp-position))))))
        (agentls-log "hover: %s" (if (string-match-p "```diff" (plist-get (plist-get hover :contents) :value))
                                     "diff" (format "%S" hover)))
        ;; 3. Accept through eglot's code actions at the diagnostic.
        (goto-char pos)
        (let* ((actions (eglot-code-actions (line-beginning-position) (line-end-position)))
               (accept (cl-find "Agent: Accept change" actions
                                :key (lambda (a) (plist-get a :title)) :test #'equal)))
          (agentls-log "code actions: %s" (mapconcat (lambda (a) (plist-get a :title)) actions " | "))
          (unless accept (error "no Agent: Accept change at the diagnostic"))
          (eglot-execute server accept)))
      (agentls-wait "the diagnostic to go" (lambda () (null (agentls-diags))))
      (agentls-log "after accept: %d diagnostics" (length (agentls-diags)))
      (agentls-log "buffer: %s" (buffer-substring-no-properties (point-min) (point-max))))))

(condition-case err
    (agentls-run)
  (error (agentls-fail "error: %S" err)))
(agentls-finish)
