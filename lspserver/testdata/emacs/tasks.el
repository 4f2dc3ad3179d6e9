;;; tasks.el --- eglot check of task comments for agentls  -*- lexical-binding: t; -*-
;;
;; Run by eglot_tasks_test.go: `emacs --batch -Q -l tasks.el'.  Plain Emacs
;; 30 with its built-in eglot, no plugin, and a file holding a comment that
;; ends in "agent!": flymake must show the task, eglot's code actions on its
;; line must offer "Agent: <words>", picking it must run the agent, and
;; accepting the proposal (which removes the comment) must clear the task.
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
      ;; What an idle Emacs does, which a batch Emacs never is.
      (when (eglot-managed-p) (eglot--signal-textDocument/didChange))
      (when (bound-and-true-p flymake-mode) (flymake-start)))
    (or (funcall pred) (error "timed out waiting for %s" what))))

(defun agentls-diags (code)
  "The flymake diagnostics in the current buffer whose text names CODE."
  (cl-remove-if-not
   (lambda (d) (string-match-p (regexp-quote (format "[%s]" code)) (flymake-diagnostic-text d)))
   (flymake-diagnostics)))

(defvar agentls-run-end nil)
(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentls/runEvent)) &key kind &allow-other-keys)
  (when (member kind '("finished" "failed" "cancelled"))
    (setq agentls-run-end kind)))

(defun agentls-titles (actions)
  (mapconcat (lambda (a) (plist-get a :title)) actions " | "))

(defun agentls-run ()
  (let* ((bin (getenv "AGENTLS_BIN"))
         (file (getenv "AGENTLS_FILE"))
         (url (getenv "AGENTLS_MODEL_URL")))
    (setq eglot-server-programs
          `((text-mode . (,bin "serve" :initializationOptions
                               (:model (:baseURL ,url :name "test-model") :mode "preview")))))
    (setq eglot-sync-connect t eglot-events-buffer-config '(:size 0))
    (find-file file)
    (text-mode)
    (apply #'eglot (eglot--guess-contact))
    (agentls-wait "eglot" (lambda () (eglot-managed-p)))
    (let ((server (eglot-current-server)))
      ;; 1. flymake shows the task.
      (agentls-wait "the task's diagnostic" (lambda () (agentls-diags "agent-task")))
      (let ((d (car (agentls-diags "agent-task"))))
        (agentls-log "flymake: line %d %s: %s"
                     (line-number-at-pos (flymake-diagnostic-beg d))
                     (flymake-diagnostic-type d)
                     (flymake-diagnostic-text d))
        (agentls-log "covers: %s" (buffer-substring-no-properties
                                   (flymake-diagnostic-beg d) (flymake-diagnostic-end d)))
        ;; 2. eglot's code actions on that line offer the task; pick it.
        (goto-char (flymake-diagnostic-beg d))
        (let* ((actions (eglot-code-actions (line-beginning-position) (line-end-position)))
               (task (cl-find-if (lambda (a) (string-prefix-p "Agent: double" (plist-get a :title))) actions)))
          (agentls-log "actions: %s" (agentls-titles actions))
          (unless task (error "no task action on the comment's line"))
          (eglot-execute server task)))
      (agentls-wait "the run" (lambda () agentls-run-end))
      (agentls-log "run: %s" agentls-run-end)
      ;; 3. The proposal removes the comment; accepting it clears the task.
      (agentls-wait "the proposal" (lambda () (agentls-diags "proposal")))
      (goto-char (flymake-diagnostic-beg (car (agentls-diags "proposal"))))
      (let* ((actions (eglot-code-actions (line-beginning-position) (line-end-position)))
             (accept (cl-find "Agent: Accept change" actions
                              :key (lambda (a) (plist-get a :title)) :test #'equal)))
        (unless accept (error "no Agent: Accept change: %s" (agentls-titles actions)))
        (eglot-execute server accept))
      (agentls-wait "the task to go" (lambda () (and (null (agentls-diags "agent-task"))
                                                     (null (agentls-diags "proposal")))))
      (agentls-log "after accept: %d diagnostics" (length (agentls-diags "agent")))
      (agentls-log "buffer: %s" (buffer-substring-no-properties (point-min) (point-max))))))

(condition-case err
    (agentls-run)
  (error (agentls-fail "error: %S" err)))
(agentls-finish)
