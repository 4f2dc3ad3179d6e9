;;; revert.el --- eglot run-history check for agentls  -*- lexical-binding: t; -*-
;;
;; Run by eglot_revert_test.go: `emacs --batch -Q -l revert.el'.  Plain
;; Emacs 30 with its built-in eglot, no plugin: starts the agentls binary
;; on two files, runs an agent task that changes both (preview mode, the
;; model is a scripted server), accepts the run, then reverts it through
;; the code action "Agent: Revert run ID" offered on a line the run
;; changed, as an eglot user would.  Both buffers must be back as they
;; were, and undo in each must bring the accepted text back.  Before the
;; revert, the code action "Agent: Open report of run ID" must ask to open
;; the report (window/showDocument, external: eglot calls browse-url).
;;
;; Environment: AGENTLS_BIN, AGENTLS_FILE_A, AGENTLS_FILE_B,
;; AGENTLS_RESULT, AGENTLS_MODEL_URL.  The report's first line is "OK" or
;; "FAIL"; the rest explains.

(require 'eglot)
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
      ;; What an idle Emacs does, which a batch Emacs never is: eglot
      ;; sends pending didChange from an idle timer.
      (dolist (buf (buffer-list))
        (with-current-buffer buf
          (when (eglot-managed-p) (eglot--signal-textDocument/didChange)))))
    (or (funcall pred) (error "timed out waiting for %s" what))))

(defun agentls-idle ()
  "What Emacs does between two of the user's commands: eglot's idle timer
sends the buffers' pending changes."
  (dolist (buf (buffer-list))
    (with-current-buffer buf
      (when (eglot-managed-p) (eglot--signal-textDocument/didChange))))
  (accept-process-output nil 0.05))

(defvar agentls-run-id nil)
(defvar agentls-run-end nil)
(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentls/runEvent)) &key runId kind parentRunId &allow-other-keys)
  (when (and (not parentRunId) (member kind '("finished" "failed" "cancelled")))
    (setq agentls-run-id runId agentls-run-end kind)))

;; The report opens in a browser: record what eglot was asked to open.
(defvar agentls-browsed nil)
(setq browse-url-browser-function (lambda (url &rest _) (push url agentls-browsed)))

(defun agentls-text (buf)
  (with-current-buffer buf (buffer-substring-no-properties (point-min) (point-max))))

(defun agentls-action (server title beg end)
  "The code action titled TITLE over BEG..END, asking until the server offers it."
  (agentls-idle)
  (let (found)
    (agentls-wait (format "the code action %S" title)
                  (lambda ()
                    (setq found (cl-find title (eglot-code-actions beg end)
                                         :key (lambda (a) (plist-get a :title)) :test #'equal))))
    (ignore server)
    found))

(defun agentls-undo (buf)
  "Undo the last change group of BUF, as `C-/' there would."
  (with-current-buffer buf
    (let ((last-command nil))
      (undo))))

(defun agentls-run ()
  (let* ((bin (getenv "AGENTLS_BIN"))
         (url (getenv "AGENTLS_MODEL_URL")))
    (setq eglot-server-programs
          `((text-mode . (,bin "serve" :initializationOptions
                               (:model (:baseURL ,url :name "test-model") :mode "preview")))))
    (setq eglot-sync-connect t eglot-events-buffer-config '(:size 0))
    (let* ((a (find-file-noselect (getenv "AGENTLS_FILE_A")))
           (b (find-file-noselect (getenv "AGENTLS_FILE_B")))
           server)
      (set-buffer a)
      (text-mode)
      (apply #'eglot (eglot--guess-contact))
      (agentls-wait "eglot" (lambda () (eglot-managed-p)))
      (setq server (eglot-current-server))
      ;; The second file joins the same server, as visiting it would.
      (with-current-buffer b
        (text-mode)
        (unless (eglot-managed-p) (eglot--maybe-activate-editing-mode)))
      (agentls-log "managed: %s %s" (with-current-buffer a (eglot-managed-p)) (with-current-buffer b (eglot-managed-p)))
      (let ((before-a (agentls-text a))
            (before-b (agentls-text b)))
        ;; 1. A run that changes both files, in preview mode.
        (jsonrpc-request server :workspace/executeCommand
                         `(:command "agentls.run"
                           :arguments [(:prompt "Shout in both files." :uri ,(eglot-path-to-uri (buffer-file-name a)))]))
        (agentls-wait "the run" (lambda () agentls-run-end))
        (agentls-log "run: %s" agentls-run-end)
        ;; 2. Accept the run's change in each file with eglot's code action,
        ;; as its users do (eglot-execute waits for the answer; eglot sends
        ;; the edit's didChange only after it).
        (dolist (spot (list (cons a "say hello") (cons b "say bye")))
          (with-current-buffer (car spot)
            (goto-char (point-min))
            (search-forward (cdr spot))
            (let ((action (agentls-action server "Agent: Accept change" (line-beginning-position) (line-end-position))))
              (let ((res (eglot-execute server action)))
                (agentls-log "accept %s: applied %s, verifying %s" (buffer-name)
                             (plist-get res :applied) (plist-get res :verifying))))))
        (agentls-wait "the accepted text" (lambda () (string-match-p "HELLO" (agentls-text a))))
        (let ((accepted-a (agentls-text a))
              (accepted-b (agentls-text b)))
          (agentls-log "accepted b: %s" accepted-b)
          ;; The command loop closes an undo group after each command.
          (dolist (buf (list a b)) (with-current-buffer buf (undo-boundary)))
          ;; 3. The report, from the code action on a changed line.
          (with-current-buffer a
            (goto-char (point-min))
            (search-forward "HELLO")
            (let ((action (agentls-action server (format "Agent: Open report of run %s" agentls-run-id)
                                          (line-beginning-position) (line-end-position))))
              (eglot-execute server action)))
          (agentls-wait "the report to be opened" (lambda () agentls-browsed))
          (agentls-log "browsed: %s" (car agentls-browsed))
          ;; 4. Revert through the code action on the changed line of a.txt.
          (with-current-buffer a
            (goto-char (point-min))
            (search-forward "HELLO")
            (let* ((title (format "Agent: Revert run %s" agentls-run-id))
                   (action (agentls-action server title (line-beginning-position) (line-end-position))))
              (agentls-log "code actions: %s"
                           (mapconcat (lambda (x) (plist-get x :title))
                                      (eglot-code-actions (line-beginning-position) (line-end-position)) " | "))
              (let ((res (eglot-execute server action)))
                (agentls-log "revert: reverted %s, conflicts %S" (plist-get res :reverted) (plist-get res :conflicts)))))
          (agentls-wait "both files reverted"
                        (lambda () (and (equal (agentls-text a) before-a) (equal (agentls-text b) before-b))))
          (agentls-log "reverted a: %s" (equal (agentls-text a) before-a))
          (agentls-log "reverted b: %s" (equal (agentls-text b) before-b))
          (dolist (buf (list a b)) (with-current-buffer buf (undo-boundary)))
          ;; 5. Undo in each buffer brings the accepted text back.
          (agentls-undo a)
          (agentls-undo b)
          (agentls-log "undo a: %s" (equal (agentls-text a) accepted-a))
          (agentls-log "undo b: %s" (equal (agentls-text b) accepted-b))
          (unless (and (equal (agentls-text a) accepted-a) (equal (agentls-text b) accepted-b))
            (agentls-fail "after undo: a %S, b %S" (agentls-text a) (agentls-text b))))))))

(condition-case err
    (agentls-run)
  (error (agentls-fail "error: %S" err)))
(agentls-finish)
