;;; review.el --- eglot: insertions, plans and new files  -*- lexical-binding: t; -*-
;;
;; Run by eglot_test.go: `emacs --batch -Q -l review.el'.  Plain Emacs 30
;; with its built-in eglot, no plugin, against the agentls binary and a
;; scripted model:
;;
;; 1. A run proposes an inserted line.  With point in the middle of the
;;    line the insertion goes before, eglot's code actions (at point, and
;;    over a range on that line as eglot asks for the diagnostic under
;;    point) start with "Agent: Accept change", preferred; eglot's default
;;    choice (what RET picks) accepts it.
;; 2. A plan-mode run: the whole plan is shown in a window (a Markdown
;;    file the server wrote, sent with window/showDocument), the end
;;    message names the file, and "Agent: Approve plan" is offered.
;; 3. A run proposes a new file.  Before it exists it is listed in
;;    flymake's project diagnostics, and flymake shows it in the buffer
;;    the run was started from (flymake marks nothing in an empty buffer);
;;    visiting its path (an empty buffer)
;;    its hover shows it whole and its code actions start with Accept;
;;    accepting fills the buffer with exactly the proposed text, and
;;    saving writes exactly those bytes.
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
      ;; backends from one, timers (showDocument's) run.
      (when (eglot-managed-p) (eglot--signal-textDocument/didChange))
      (when (bound-and-true-p flymake-mode) (flymake-start))
      (sit-for 0))
    (or (funcall pred) (error "timed out waiting for %s" what))))

(defun agentls-diags ()
  "The agentls diagnostics flymake holds in the current buffer, by position."
  (sort (cl-remove-if-not
         (lambda (d) (string-match-p "agentls" (flymake-diagnostic-text d)))
         (flymake-diagnostics))
        (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b)))))

(defvar agentls-run-end nil)
(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentls/runEvent)) &key kind &allow-other-keys)
  (when (member kind '("finished" "failed" "cancelled"))
    (setq agentls-run-end kind)))

(defvar agentls-messages nil)
(defvar agentls-origin-companions nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (push message agentls-messages))

(defun agentls-start-run (server args)
  "Start an agent run with ARGS and wait for its end."
  (setq agentls-run-end nil)
  (jsonrpc-request server :workspace/executeCommand
                   `(:command "agentls.run" :arguments [,args]))
  (agentls-wait "the run" (lambda () agentls-run-end))
  agentls-run-end)

(defun agentls-titles (actions)
  (mapconcat (lambda (a) (concat (plist-get a :title)
                                 (if (eq (plist-get a :isPreferred) t) " (preferred)" "")))
             actions " | "))

(defun agentls-default-action (actions server)
  "Run the action eglot picks when the user just presses RET."
  (cl-letf (((symbol-function 'completing-read)
             (lambda (_prompt _coll &optional _pred _req _init _hist def &rest _) def)))
    ;; A keyboard event (RET): a list (or nil) would mean a mouse menu.
    (let ((last-nonmenu-event ?\r))
      (eglot--read-execute-code-action actions server))))

(defun agentls-insertion (server uri)
  (agentls-log "run 1: %s" (agentls-start-run server `(:prompt "Add a title line." :uri ,uri)))
  (agentls-wait "the insertion's diagnostic" (lambda () (agentls-diags)))
  (let ((before (buffer-string)))
    ;; Point in the middle of "  say hi", the line the insertion goes before.
    (goto-char (point-min))
    (forward-line 1)
    (forward-char 4)
    (agentls-log "point: line %d column %d" (line-number-at-pos) (current-column))
    (let ((at-point (eglot-code-actions (point) (point)))
          (over-range (eglot-code-actions (point) (+ (point) 3))))
      (agentls-log "actions at point: %s" (agentls-titles at-point))
      (agentls-log "actions over a range: %s" (agentls-titles over-range))
      (unless (equal (buffer-string) before)
        (agentls-fail "the buffer changed before any accept"))
      (agentls-default-action at-point server))
    (agentls-wait "the inserted line" (lambda () (not (equal (buffer-string) before))))
    (agentls-log "after the default action: %s" (buffer-substring-no-properties (point-min) (point-max)))))

(defun agentls-plan (server uri)
  (setq agentls-messages nil)
  (agentls-log "plan run: %s" (agentls-start-run server `(:prompt "Plan the ending." :uri ,uri :mode "plan")))
  (let (plan-buffer)
    (agentls-wait "the plan shown"
                  (lambda ()
                    (setq plan-buffer
                          (cl-find-if (lambda (b)
                                        (let ((f (buffer-file-name b)))
                                          (and f (string-match-p "/agentls/answers/[^/]+\\.md\\'" f))))
                                      (buffer-list)))))
    (agentls-log "plan buffer: %s" (with-current-buffer plan-buffer (buffer-string)))
    (agentls-log "plan in a window: %s" (if (get-buffer-window plan-buffer t) "yes" "no"))
    (agentls-log "plan message: %s"
                 (or (cl-find-if (lambda (m) (string-match-p "the whole plan: " m)) agentls-messages) "none"))
    (agentls-log "plan message names the file: %s"
                 (if (cl-find-if (lambda (m) (string-search (buffer-file-name plan-buffer) m)) agentls-messages)
                     "yes" "no"))
)
  (agentls-log "actions after the plan: %s" (agentls-titles (eglot-code-actions (point) (point)))))

(defun agentls-new-file (server uri)
  (agentls-log "new-file run: %s" (agentls-start-run server `(:prompt "Write the second notes file." :uri ,uri)))
  (let ((path (expand-file-name "notes2.txt" (file-name-directory (getenv "AGENTLS_FILE")))))
    (agentls-log "exists before: %s" (if (file-exists-p path) "yes" "no"))
    ;; Before it is visited: flymake's project diagnostics list it
    ;; (M-x flymake-show-project-diagnostics).
    (agentls-wait "the new file in the project diagnostics"
                  (lambda () (assoc path flymake-list-only-diagnostics)))
    (dolist (d (cdr (assoc path flymake-list-only-diagnostics)))
      (agentls-log "project diagnostics: %s: %s" (file-name-nondirectory path) (flymake-diagnostic-text d)))
    ;; In the buffer the run was started from (flymake cannot mark
    ;; anything in the new file's empty buffer): flymake holds the new
    ;; file on the line the run started at.
    (let ((origin (current-buffer)))
      (cl-flet ((companions ()
                  (with-current-buffer origin
                    (cl-remove-if-not (lambda (d) (string-match-p "New file notes2.txt" (flymake-diagnostic-text d)))
                                      (agentls-diags)))))
        (agentls-wait "the new file in flymake of the run's buffer" #'companions)
        (dolist (d (companions))
          (agentls-log "flymake in %s, line %d: %s" (buffer-name origin)
                       (with-current-buffer origin (line-number-at-pos (flymake-diagnostic-beg d)))
                       (flymake-diagnostic-text d)))
        (setq agentls-origin-companions #'companions)))
    ;; Visited (an empty buffer, no file yet): hover shows it whole (an
    ;; empty buffer has no character for flymake to mark).
    (find-file path)
    (text-mode)
    (unless (eglot-managed-p) (eglot--maybe-activate-editing-mode))
    (agentls-wait "eglot in the new file's buffer" (lambda () (eglot-managed-p)))
    (let ((hover (jsonrpc-request server :textDocument/hover
                                  `(:textDocument (:uri ,(eglot-path-to-uri path)) :position (:line 0 :character 0)))))
      (agentls-log "new file hover: %s" (plist-get (plist-get hover :contents) :value)))
    (goto-char (point-min))
    (let ((actions (eglot-code-actions (point) (point))))
      (agentls-log "new file actions: %s" (agentls-titles actions))
      (agentls-default-action actions server))
    (agentls-wait "the new file's text" (lambda () (> (buffer-size) 0)))
    (agentls-wait "the new file gone from the run's buffer once accepted"
                  (lambda () (null (funcall agentls-origin-companions))))
    (agentls-log "after accepting, flymake in the run's buffer: %d new-file notes" (length (funcall agentls-origin-companions)))
    (let ((require-final-newline nil))
      (save-buffer))
    (agentls-log "new file buffer: %S" (buffer-substring-no-properties (point-min) (point-max)))
    (agentls-log "new file on disk: %S" (with-temp-buffer
                                          (insert-file-contents-literally path)
                                          (buffer-string)))))

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
    (let ((server (eglot-current-server))
          (uri (eglot-path-to-uri (buffer-file-name))))
      (agentls-insertion server uri)
      (agentls-plan server uri)
      (agentls-new-file server uri))))

(condition-case err
    (agentls-run)
  (error (agentls-fail "error: %S" err)))
(agentls-finish)
