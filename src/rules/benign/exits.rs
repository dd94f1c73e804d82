//! The table of benign exits: every command whose non-zero status is an
//! answer, with the rules it overrules, the codes it forgives and what the
//! command must have printed (see the parent module for how a line is read).

use super::{BenignExit, Printed};

/// The lines a `git push` (fetch, clone, checkout) that worked prints under
/// Windows PowerShell with its stderr redirected: git's progress, the refs
/// it updated, and the error record PowerShell wraps them in (`git : To
/// <url>`, `At line:2 char:1`, the echoed script line, `+ ~~~~`,
/// `+ CategoryInfo : NotSpecified: …`, `+ FullyQualifiedErrorId :
/// NativeCommandError`). Lines are seen trimmed.
const GIT_PROGRESS_UNDER_POWERSHELL: &str = r"^(?:git : )?(?:To \S+|From \S+|[-+*=]?\s*(?:[0-9a-f]{7,}\.\.\.?[0-9a-f]{7,}|\[new (?:branch|tag|ref)\]|\[up to date\])\s+\S+ -> \S+.*|Everything up-to-date|Already on '[^']+'|branch '[^']+' set up to track .*|remote:.*|(?:Enumerating|Counting|Compressing|Writing|Receiving|Resolving|Unpacking) (?:objects|deltas):.*|Total \d+.*|Delta compression.*|Cloning into .*|Switched to (?:a new )?branch .*|Your branch is .*|At line:\d+ char:\d+|\+ ~+|\+ CategoryInfo\s*: NotSpecified: .*|\+ FullyQualifiedErrorId\s*: NativeCommandError|\+ .*\bgit\b.*)\s*$";

/// What which, where, type and hash print when the name is not there (seen
/// trimmed): GNU which, Windows
/// `where`, bash (`bash: line 1: type: X: not found`), zsh, dash and fish.
const LOOKUP_NOT_FOUND: &str = r"which: no \S+ in \(|INFO: Could not find files for the given pattern|\b(?:type|hash): \S+: not found$|^\S+:? not found$|^type: Could not find '";

/// What `kill` prints when it was given no pid: procps-ng's usage (under
/// GNU xargs, which runs it once on empty input), bash's builtin's one-line
/// usage, util-linux's `not enough arguments` (lines seen trimmed).
const KILL_GIVEN_NO_PID: &str = r"^(?:Usage:|Options:|kill \[options\] <pid>|<pid> \[\.\.\.\]|-(?:<signal>|\w), -|specify the <signal>|integer value to be sent|list all signal names|display this help|output version information|For more details see kill\(1\))|(?:^|: )kill: (?:usage: kill|not enough arguments)|^usage: kill \[|^kill -(?:l \[exit_status\]|signal_name pid|signal_number pid)|^(?:bash: )?(?:line \d+: )?kill: usage: ";

/// A line in which a server says it started and where it listens (Vite's
/// `Local: http://localhost:5173/`, Uvicorn's `Uvicorn running on`, Next's
/// `Ready in 2.1s`, Flask's `Running on http://127.0.0.1:5000`, Express
/// apps' `listening on port 3000`).
const SERVER_STARTED: &str = r"(?i)\b(?:listening|serving|running|ready|available|started|up)\b.{0,40}?\b(?:on|at)\s+(?:port\s+\d{2,5}\b|https?://|[\w.-]*:\d{2,5}\b)|https?://(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\])(?::\d+)?|\bApplication startup complete\b|\bserver (?:is )?(?:running|started|listening|ready)\b|\bready in \d|\bcompiled successfully\b|\bwatching for (?:file )?changes\b";

/// The content rules that report a process exit code.
/// GNU and BSD find's report of a directory it could not enter while
/// walking (`find: '/root': Permission denied`): beside what it found, or
/// alone when it found nothing, the walk answered (and `rules::masked`
/// does not read it as an earlier command's failure).
pub const FIND_WALK_ERROR: &str =
    r"(?i)^find: .+: (?:permission denied|operation not permitted|too many levels of symbolic links)\s*$";

/// git-rev-parse(1)'s options that only find the repository.
const GIT_REPOSITORY_PROBE: &str = r"^git (?:-C \S+ )?rev-parse (?:.*\s)?--(?:is-inside-(?:work-tree|git-dir)|git-dir|absolute-git-dir|git-common-dir|show-toplevel|show-cdup|show-prefix|is-bare-repository)\b";

const EXIT_RULES: &[&str] = &[
    "exit-code-line",
    // mcp-server-kubernetes's `exec_in_pod` (its `command` is the call's);
    // Desktop Commander's process reads carry no command, so no benign
    // exit can apply to them.
    "mcp-server-soft-failure",
    // @heroku/mcp-server's one-off dyno (its `command` is the call's).
    "reported-exit-status",
    "openai-agents-sandbox-tool",
    "codex-process-exited",
    "codex-exit-code",
    "gemini-exit-code",
    "background-task-failed",
    "openai-agents-exit-code",
    "zed-terminal-exit-code",
    "cursor-exit-code",
    "openhands-exit-code",
    "continue-exit-code",
    "copilot-exit-code",
    "pi-exit-code",
    "kiro-exit-code",
    "aider-exit-code",
    "cline-command-failed",
    "json-envelope-error",
    "codex-tool-error",
];

/// Every benign exit, checked in order.
pub static BENIGN_EXITS: &[BenignExit] = &[
    BenignExit {
        id: "search-found-nothing",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?i:grep|rg|egrep|fgrep|ag|ack|find|test|\[\[?|which|where|findstr|select-string|git grep|command -v|type|hash)(?:\s|$)",
        printed: Printed::Nothing,
        described: None,
        doc: "grep, rg, egrep, fgrep, ag, ack, find, test, `[`, `[[`, which, where, `command -v`, type, hash, \
              findstr, Select-String and `git grep` exit 1 to say \"no match\" (and print nothing), not that they \
              failed.",
        fires_on: &[
            "grep -rn TODO src",
            "cd /p && rg -l foo",
            "LC_ALL=C grep x f",
            "git grep needle",
            "test -f x",
            "grep -r \"a\\|b\" dir",
            "rg -n \"LEVEL|OTHER\" -g \"*.md\"",
            "sudo timeout 5 grep x /var/log/syslog 2>/dev/null",
            "cat f | /usr/bin/grep -i x",
        ],
        ignores: &["cargo test", "grep x | wc -l", "git status", "npm run find", "rg x; make"],
    },
    BenignExit {
        id: "search-no-match-after-output",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?i:grep|rg|egrep|fgrep|ag|ack|git grep|findstr|pgrep|pidof)(?:\s|$)",
        printed: Printed::NoLine(
            r"(?i)^(?:grep|rg|egrep|fgrep|ag|ack|git|findstr|pgrep|pidof)\b[^\n]*:|^error\b|^fatal:|regex parse error|command not found|: not found$|is not recognized as|no such file or directory|permission denied|operation not permitted",
        ),
        described: None,
        doc: "grep, rg, ag, ack, `git grep`, findstr, pgrep and pidof exit 1 only to say \"no match\" (their \
              errors exit 2 or more), so when one of them is the line's last command its status 1 is that \
              answer whatever the commands before it printed (`aws … && ssh host 'ss -tln | grep 8080'`), as long \
              as no line is the search's own error (`rg: regex parse error`) or an earlier command's failure \
              (`netstat: command not found` before `| grep :5000` leaves grep nothing to find). Under \
              `set -o pipefail` a pipeline's status can be an earlier command's, and the pipeline is read whole.",
        fires_on: &["aws ec2 describe-instances && grep -c running out.txt", "docker ps | grep web"],
        ignores: &["grepx", "npm test"],
    },
    BenignExit {
        id: "glob-matched-nothing",
        rules: EXIT_RULES,
        codes: &[1, 2],
        command: r"^ls(?: -[\w-]+)* [^ ]*[*?][^ ]*$",
        printed: Printed::Anything,
        described: None,
        doc: "`ls` of one glob (`ls .heroku*`, `ls logs/*.gz`) that matched nothing: the shell passes the pattern \
              unexpanded, and ls exits 1 (BSD) or 2 (GNU coreutils) saying no such file. The call asked which \
              files match, and \"none\" is an answer (LABELS.md: a search or lookup). A named path that is \
              missing (`ls config.yml`) stays a failure.",
        fires_on: &["ls .heroku*", "ls -la logs/*.gz", "cat Procfile; ls -d .env*"],
        ignores: &["ls config.yml", "ls *.txt missing-dir", "ls src"],
    },
    BenignExit {
        id: "files-differ",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:diff|cmp)(?:\s|$)|^git (?:--no-pager )?diff\b.*\s--(?:exit-code|quiet|no-index)\b",
        printed: Printed::Anything,
        described: None,
        doc: "diff, cmp and `git diff --exit-code`/`--quiet`/`--no-index` exit 1 to say \"the files differ\" and \
              print the difference. A plain `git diff` exits 0 whatever it shows.",
        fires_on: &[
            "LC_ALL=C diff a b",
            "cd /p && git diff --exit-code",
            "cmp -s a b",
            "git diff --quiet HEAD",
            "git diff --no-index old.txt new.txt",
        ],
        ignores: &["git status", "make diff-check; false", "git diff --staged && git diff"],
    },
    BenignExit {
        id: "deliberate-interrupt",
        rules: EXIT_RULES,
        codes: &[1, 130],
        command: r"^\x03|^C-c$",
        printed: Printed::Anything,
        described: None,
        doc: "Codex's write_stdin sending Ctrl+C (`chars: \"\\u0003\"`), or OpenHands sending `C-c` as input, to a \
              running command: the process exiting 1 or 130 afterwards is the interrupt the agent asked for, not a \
              failure.",
        fires_on: &["\u{3}", "C-c"],
        ignores: &["q", "y\n"],
    },
    BenignExit {
        id: "deliberate-wait",
        rules: &["openhands-still-running"],
        codes: &[],
        command: r"^$",
        printed: Printed::Anything,
        described: None,
        doc: "OpenHands' agent sending an empty command to a running process asks for more of its output: a \
              `no new output after N seconds` notice then is the wait it asked for, not a failure.",
        fires_on: &[""],
        ignores: &["npm run dev", "C-c"],
    },
    BenignExit {
        id: "no-process-matched",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:pgrep|pkill|killall|pidof|lsof|fuser)(?:\s|$)",
        printed: Printed::Nothing,
        described: None,
        doc: "pgrep, pkill, killall, pidof, lsof and fuser exit 1 to say that no process (or no open file, no \
              listener on the port) matched, and print nothing: the agent's check found nothing, it did not fail.",
        fires_on: &["pkill -f \"python3 app.py\"", "lsof -i :3000", "pgrep -f vite", "sudo lsof -ti tcp:8080"],
        ignores: &["kill 123", "ps aux", "npm run dev"],
    },
    BenignExit {
        id: "windows-no-such-process",
        rules: EXIT_RULES,
        codes: &[128],
        command: r"^(?i:taskkill(?:\.exe)?)(?:\s|$)",
        printed: Printed::Anything,
        described: None,
        doc: "Windows `taskkill` exits 128 (`ERROR: The process \"x\" not found.`) when there was nothing to stop.",
        fires_on: &["taskkill /F /IM node.exe"],
        ignores: &["tasklist"],
    },
    BenignExit {
        id: "unset-git-config",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^git config (?:--(?:global|local|system) )?(?:--get(?:-all)? )?[\w.-]+$",
        printed: Printed::Nothing,
        described: None,
        doc: "`git config KEY` exits 1 and prints nothing when the key is not set: the answer to the agent's \
              question, not a failure.",
        fires_on: &["git config user.email", "git config --global --get core.editor"],
        ignores: &["git config user.email a@b.c", "git commit -m x"],
    },
    BenignExit {
        id: "waited-as-asked",
        rules: &["copilot-harness-wait", "openhands-still-running"],
        codes: &[],
        command: r"^(?i:sleep|start-sleep)(?:\s|$)",
        printed: Printed::Anything,
        described: None,
        doc: "A command whose purpose was waiting (`sleep 60`, `Start-Sleep 30`) that reached the harness's soft \
              time limit waited as it was asked: not a failure (LABELS.md).",
        fires_on: &["sleep 60", "Start-Sleep -Seconds 30"],
        ignores: &["npm run dev", "sleepwatcher"],
    },
    BenignExit {
        id: "interrupted-by-ctrl-c",
        rules: EXIT_RULES,
        codes: &[130, 3221225786, -1073741510],
        command: r"^",
        printed: Printed::Anything,
        described: None,
        doc: "A command that ended because Ctrl-C was pressed (exit 130 on Unix, `STATUS_CONTROL_C_EXIT` \
              0xC000013A on Windows) was cancelled by the user, not failed: rejected, never a hidden error \
              (LABELS.md).",
        fires_on: &["npm run dev", "python server.py"],
        ignores: &[],
    },
    BenignExit {
        id: "no-such-process",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:kill|pkill|killall)(?:\s|$)",
        printed: Printed::Only(r"(?i)\bno such process\b|\bno process found\b|\bno matching processes\b"),
        described: None,
        doc: "kill (bash's builtin and procps'), pkill and killall of a process that is already gone exit 1 \
              saying only `No such process` / `no process found`: what the agent wanted stopped is not running.",
        fires_on: &["kill 48213", "kill -9 $(cat app.pid)", "killall node"],
        ignores: &["kill-server", "npm run kill"],
    },
    BenignExit {
        id: "no-such-process-listed",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^ps\b.*(?:\s-p|\s--pid|\s-q|\s--quick-pid)\b",
        printed: Printed::Only(r"^\s*PID\s"),
        described: None,
        doc: "procps `ps -p PID` exits 1 when no process was selected and prints only its header: the answer \
              to \"is it still running?\" is no.",
        fires_on: &["ps -p 48213", "ps -o pid,cmd -p 12 13", "ps --pid 9"],
        ignores: &["ps aux", "psql -p 5432"],
    },
    BenignExit {
        id: "ssh-authenticated-without-shell",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^ssh\b.*\s-T\b",
        printed: Printed::Some(r"successfully authenticated|Welcome to GitLab|logged in as|authenticated via"),
        described: None,
        doc: "`ssh -T git@github.com` (and GitLab's, Bitbucket's) exits 1 when authentication worked, because the \
              host gives no shell: the greeting says it succeeded.",
        fires_on: &["ssh -T git@github.com", "ssh -o StrictHostKeyChecking=no -T git@gitlab.com"],
        ignores: &["ssh host uptime", "sshd -T"],
    },
    BenignExit {
        id: "git-progress-under-powershell",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^git (?:-C \S+ )?(?:push|fetch|clone|checkout|switch)\b",
        printed: Printed::Only(GIT_PROGRESS_UNDER_POWERSHELL),
        described: None,
        doc: "git writes its progress and the refs it updated (`To <url>`, `+ a1b2...c3d4 main -> main (forced \
              update)`) on stderr. Windows PowerShell 5.1 turns each line a native command writes there, with \
              `2>&1`, into an error record (`NativeCommandError`, category `NotSpecified`) and sets `$?` to \
              false, so a tool that reports `$?` (Copilot CLI's `finally { $__copilotSuccess = $? }`) says exit \
              code 1 for a push that worked. When every line is git's own progress or that record, with no \
              `error:`, `fatal:` or `! [rejected]`, git reported no failure (LABELS.md: PowerShell's \
              NativeCommandError around a `git push` that worked).",
        fires_on: &["git push -u origin main --force 2>&1", "cd C:\\p; git push origin main 2>&1", "git fetch --all"],
        ignores: &["git commit -m x", "git status", "gitpush origin"],
    },
    BenignExit {
        id: "lookup-said-not-found",
        rules: EXIT_RULES,
        codes: &[1, 127],
        command: r"^(?i:which|where|type|hash|command -v)(?:\s|$)",
        printed: Printed::Only(LOOKUP_NOT_FOUND),
        described: None,
        doc: "which, where, type and hash that say the name is not there, and nothing else: GNU which (Fedora, \
              RHEL, Arch) prints `which: no X in (PATH)`, Windows `where` prints `INFO: Could not find files for \
              the given pattern(s).`, bash's `type`/`hash` print `type: X: not found`, zsh's `X not found`, \
              dash's `X: not found` (exit 127), fish's `type: Could not find 'X'`. The lookup's answer is no \
              (LABELS.md: which/command -v/type not found).",
        fires_on: &["which docker", "where python3", "type poetry", "hash uv 2>/dev/null"],
        ignores: &["whichever", "typescript --init", "npm run type-check"],
    },
    BenignExit {
        id: "get-command-found-nothing",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?i:get-command|gcm)(?:\s|$)",
        printed: Printed::Some(r"CommandNotFoundException|is not recognized as (?:the|a) name of a cmdlet"),
        described: None,
        doc: "PowerShell's `Get-Command X` asks whether X exists; when it does not, PowerShell writes the \
              CommandNotFoundException error record and sets `$?` to false. A probe that finds the command \
              missing answered (LABELS.md).",
        fires_on: &["Get-Command uv", "gcm node -ErrorAction Stop"],
        ignores: &["Get-ChildItem", "Get-Content x"],
    },
    BenignExit {
        id: "version-probe-found-missing",
        rules: EXIT_RULES,
        codes: &[1, 127, 9009],
        command: r"^[\w.+-]+ (?:--version|-version|-v|-V|version|-Version)$",
        printed: Printed::Some(
            r"command not found$|\bnot found$|: executable file not found in \$PATH$|is not recognized as (?:an internal or external command|the name of a cmdlet|a name of a cmdlet)|^Python was not found; run without arguments",
        ),
        described: None,
        doc: "`X --version` (`-v`, `-V`, `version`) run to learn whether X is installed, answered by the shell's \
              `X: command not found` (exit 127; `X: not found` in dash; Crush's Go shell, mvdan/sh, says `\"X\": \
              executable file not found in $PATH`), cmd.exe's `'X' is not recognized as an \
              internal or external command` (9009), PowerShell's `not recognized as the name of a cmdlet`, or the \
              Windows Store alias's `Python was not found` (9009): a probe for a command's existence that finds \
              it missing is not a failure (LABELS.md).",
        fires_on: &["docker --version", "node -v 2>&1", "python --version", "go version"],
        ignores: &["docker compose up", "node server.js -v extra", "npm install"],
    },
    BenignExit {
        id: "unit-state-query",
        rules: EXIT_RULES,
        codes: &[1, 3, 4],
        command: r"^systemctl (?:--?[\w-]+ )*is-(?:active|enabled|failed)\b",
        printed: Printed::Only(
            r"^(?:active|inactive|failed|activating|deactivating|reloading|refreshing|unknown|enabled|enabled-runtime|linked|linked-runtime|alias|masked|masked-runtime|static|indirect|disabled|generated|transient|bad|not-found)$",
        ),
        described: None,
        doc: "`systemctl is-active`/`is-enabled`/`is-failed` print the unit's state and exit non-zero when the \
              answer is no (`inactive` exits 3, `disabled` 1): a query, not a failure. A systemctl that could \
              not ask (`Failed to connect to bus`) printed no state, and still fails.",
        fires_on: &["systemctl is-active nginx", "sudo systemctl --user is-enabled docker", "systemctl is-failed app"],
        ignores: &["systemctl start nginx", "systemctl status nginx"],
    },
    BenignExit {
        id: "unit-state-query-quiet",
        rules: EXIT_RULES,
        codes: &[1, 3, 4],
        command: r"^systemctl (?:--?[\w-]+ )*is-(?:active|enabled|failed)\b.*\s(?:-q|--quiet)\b",
        printed: Printed::Nothing,
        described: None,
        doc: "`systemctl is-active --quiet` (`-q`) answers by its status alone.",
        fires_on: &["systemctl is-active --quiet nginx"],
        ignores: &["systemctl restart --quiet nginx"],
    },
    BenignExit {
        id: "git-query-answered-no",
        rules: EXIT_RULES,
        codes: &[1, 2],
        command: r"^git (?:-C \S+ |--no-pager )*(?:merge-base (?:.*\s)?--is-ancestor|show-ref (?:.*\s)?(?:--verify|--exists|-q|--quiet)|rev-parse (?:.*\s)?(?:-q|--quiet)|ls-remote (?:.*\s)?--exit-code|check-ignore|diff-index (?:.*\s)?--quiet|diff-files (?:.*\s)?--quiet|symbolic-ref (?:.*\s)?(?:-q|--quiet))\b",
        printed: Printed::Nothing,
        described: None,
        doc: "git's yes/no queries answer no by their status and print nothing: `merge-base --is-ancestor` \
              (1), `show-ref --verify --quiet`/`--exists` (1, 2), `rev-parse --verify -q` (1), `ls-remote \
              --exit-code` (2: no matching ref), `check-ignore` (1: not ignored), `diff-index`/`diff-files \
              --quiet` (1: there are changes), `symbolic-ref -q` (1). A git that printed `fatal:` failed.",
        fires_on: &[
            "git merge-base --is-ancestor origin/main HEAD",
            "git show-ref --verify --quiet refs/heads/dev",
            "git -C repo rev-parse --verify -q feature",
            "git ls-remote --exit-code --heads origin x",
            "git check-ignore -q .env",
            "git diff-index --quiet HEAD --",
        ],
        ignores: &["git merge origin/main", "git show HEAD", "git rev-parse HEAD", "git ls-remote origin"],
    },
    BenignExit {
        id: "jq-answered-false-or-null",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^jq\s(?:.*\s)?(?:--exit-status|-[a-zA-Z]*e[a-zA-Z]*)(?:\s|$)",
        printed: Printed::Anything,
        described: None,
        doc: "`jq -e` (`--exit-status`) exits 1 when the last output was false or null: the answer to a test. \
              jq's own errors exit 2, 3 or 5.",
        fires_on: &["jq -e '.errors' report.json", "jq -re .id out.json", "curl -s x | jq --exit-status .ok"],
        ignores: &["jq '.errors' report.json", "jq -r .id f"],
    },
    BenignExit {
        id: "package-not-installed",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:pip[\d.]*|python[\d.]* -m pip|uv pip) show\b|^dpkg(?:-query)? (?:-s|--status|-l|--list|-W|--show)\b|^rpm -q\b|^brew list\b|^npm (?:ls|list) \S|^rospack find\b|^ros2 pkg prefix\b",
        printed: Printed::Only(
            r"Package\(s\) not found: |is not installed and no information is available|^Use dpkg --(?:info|contents)|no packages found matching|^package \S+ is not installed$|^Error: No such keg|^\S+@\S+(?: .+)?$|^(?:└──|`--) \(empty\)$|^\[rospack\] Error: package '\S+' not found$|^Package not found$",
        ),
        described: None,
        doc: "Asking whether a package is installed (`pip show`, `dpkg -s`/`-l`, `rpm -q`, `brew list`) and \
              being told it is not: pip's `WARNING: Package(s) not found: X`, dpkg-query's `package 'X' is not \
              installed and no information is available` / `no packages found matching X`, rpm's `package X is \
              not installed`, Homebrew's `Error: No such keg`, npm's `npm ls X` tree ending `└── (empty)`, ROS's \
              `rospack find X` (`[rospack] Error: package 'X' not found`, rospack's main.cpp) and `ros2 pkg \
              prefix X` (`Package not found`), all exit 1. A lookup whose answer is none.",
        fires_on: &[
            "pip show torch",
            "python3 -m pip show requests",
            "dpkg -s nginx",
            "rpm -q httpd",
            "brew list jq",
            "npm ls left-pad",
            "rospack find teleop_twist_keyboard",
        ],
        ignores: &["pip install torch", "dpkg -i x.deb", "rpm -i x.rpm"],
    },
    BenignExit {
        id: "no-such-user",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^id\s",
        printed: Printed::Only(r"(?i)no such user$"),
        described: None,
        doc: "`id NAME` of a user that does not exist prints `id: 'NAME': no such user` and exits 1 \
              (coreutils): the lookup's answer is none.",
        fires_on: &["id deploy"],
        ignores: &["idea .", "identify x.png"],
    },
    BenignExit {
        id: "getent-key-not-found",
        rules: EXIT_RULES,
        codes: &[2],
        command: r"^getent\s",
        printed: Printed::Nothing,
        described: None,
        doc: "`getent DATABASE KEY` exits 2 and prints nothing when the key is not in the database (glibc \
              getent: \"One or more supplied key could not be found\").",
        fires_on: &["getent passwd deploy", "getent hosts db"],
        ignores: &["get x"],
    },
    BenignExit {
        id: "port-probe-closed",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:nc|ncat|netcat)\s(?:.*\s)?-[a-zA-Z]*z",
        printed: Printed::Only(
            r"(?i)connection refused|connect to .* failed|connection to .* failed|timed out|no route to host|host is unreachable|network is unreachable",
        ),
        described: None,
        doc: "`nc -z HOST PORT` asks whether something listens on the port, and exits 1 when nothing does \
              (with `-v`: `connect to … failed: Connection refused`): like `lsof -i :PORT`, no is an answer. An \
              nc that printed anything else (`invalid option -- 'z'`) failed.",
        fires_on: &["nc -z localhost 5432", "nc -zv 127.0.0.1 6379", "nc -vz -w 2 db 3306"],
        ignores: &["nc -l 8080", "nc localhost 25"],
    },
    BenignExit {
        id: "port-probe-closed-quiet",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:nc|ncat|netcat)\s(?:.*\s)?-[a-zA-Z]*z",
        printed: Printed::Nothing,
        described: None,
        doc: "`nc -z` without `-v` answers by its status alone.",
        fires_on: &["nc -z localhost 5432"],
        ignores: &["nc -l 8080"],
    },
    BenignExit {
        id: "kill-given-nothing-to-stop",
        rules: EXIT_RULES,
        codes: &[1, 2, 123],
        command: r"^(?:xargs (?:-\S+ )*)?kill(?:\s|$)",
        printed: Printed::Only(KILL_GIVEN_NO_PID),
        described: None,
        doc: "`lsof -ti:3000 | xargs kill -9` and `kill -9 $(lsof -t -i:8000)` when nothing listens: GNU xargs \
              still runs `kill` once, without a pid, so procps kill prints its usage and xargs exits 123; \
              bash's builtin given no pid prints `kill: usage: …` and exits 2 (zsh: `kill: not enough arguments`; \
              the BSD kill of macOS: `usage: kill [-s signal_name] pid …`, exit 2). The lookup found no process, so \
              there was nothing to stop (LABELS.md: kill of a process already gone). A kill that printed \
              anything else (`Operation not permitted`) still fails.",
        fires_on: &["lsof -ti:3000 | xargs kill -9", "kill -9 $(lsof -t -i:8000)", "pgrep -f vite | xargs -r kill"],
        ignores: &["killall node", "xargs rm", "pkill -f x"],
    },
    BenignExit {
        id: "powershell-no-such-process",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?i:stop-process|get-process|spps|gps|get-nettcpconnection)(?:\s|$)",
        printed: Printed::Some(
            r"NoProcessFoundForGiven(?:Name|Id)|Cannot find a process with the (?:name|process identifier)|No MSFT_NetTCPConnection objects found",
        ),
        described: None,
        doc: "PowerShell's `Stop-Process -Name node` / `Get-Process -Name node` of a process that is not running \
              (`Cannot find a process with the name \"node\"`, `NoProcessFoundForGivenName`), and \
              `Get-NetTCPConnection -LocalPort 3000` with nothing listening (`No MSFT_NetTCPConnection objects \
              found`): the Windows forms of `kill` of a process already gone and of `lsof -i :PORT` finding \
              nothing (LABELS.md).",
        fires_on: &["Stop-Process -Name node -Force", "Get-Process -Name vite", "Get-NetTCPConnection -LocalPort 3000"],
        ignores: &["Start-Process node", "Get-ChildItem"],
    },
    BenignExit {
        id: "module-probe-found-missing",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^python[\d.]* -c (?:import [\w.]+(?: as \w+)?|from [\w.]+ import [\w, ]+)(?:\s*[;\n]\s*(?:import [\w.]+(?: as \w+)?|from [\w.]+ import [\w, ]+|print\([^()]*(?:\([^()]*\))?[^()]*\)))*\s*;?\s*$",
        printed: Printed::Only(
            r#"^Traceback \(most recent call last\):$|^File "<string>", line \d+, in <module>$|^(?:ModuleNotFoundError: No module named|ImportError: cannot import name) |^(?:import|from|print\() |^[\^~]+$"#,
        ),
        described: None,
        doc: "`python -c \"import X; print(X.__version__)\"` asks whether a module is installed; when it is not, \
              CPython prints the traceback of `ModuleNotFoundError: No module named 'X'` and exits 1. A probe for \
              a module finds it missing as a probe for a command does (LABELS.md; the corpus's decided case). A \
              module that is there but broken (`DLL load failed`, an error inside it) still fails.",
        fires_on: &["python3 -c \"import torch; print(torch.__version__)\"", "python -c 'from flask import Flask'"],
        ignores: &["python3 -c \"import app; app.main()\"", "python3 app.py"],
    },
    BenignExit {
        id: "not-a-git-repository-probe",
        rules: EXIT_RULES,
        codes: &[128],
        command: GIT_REPOSITORY_PROBE,
        printed: Printed::Only(r"^fatal: not a git repository"),
        described: None,
        doc: "git-rev-parse(1)'s options that find the repository (`--is-inside-work-tree`, `--git-dir`, \
              `--show-toplevel`, …) ask whether the folder is in one, the probe spec-kit's scripts and many \
              agents run first; outside one git answers `fatal: not a git repository` with status 128: a probe \
              answered no. `git status` or `git log` outside a repository stays a failure: they asked for its \
              state.",
        fires_on: &[
            "git rev-parse --is-inside-work-tree",
            "git -C app rev-parse --is-inside-work-tree 2>&1",
            "git rev-parse --git-dir",
            "git rev-parse --show-toplevel",
        ],
        ignores: &["git status", "git rev-parse HEAD", "git rev-parse --verify main"],
    },
    BenignExit {
        id: "not-a-git-repository-probe-quiet",
        rules: EXIT_RULES,
        codes: &[128],
        command: GIT_REPOSITORY_PROBE,
        printed: Printed::Nothing,
        described: None,
        doc: "The same probe with its answer thrown away (`git rev-parse --git-dir 2>/dev/null`): status 128 \
              and nothing printed is its no.",
        fires_on: &["git rev-parse --show-toplevel"],
        ignores: &["git rev-parse HEAD~3"],
    },
    BenignExit {
        id: "git-ls-files-unmatched",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^git (?:-C \S+ |--no-pager )*ls-files (?:.*\s)?--error-unmatch\b",
        printed: Printed::Only(
            r"^error: pathspec '[^'\n]*' did not match any file\(s\) known to git|^Did you forget to 'git add'\?",
        ),
        described: None,
        doc: "`git ls-files --error-unmatch PATH` asks whether PATH is tracked; when it is not, git reports \
              `error: pathspec '…' did not match any file(s) known to git` and exits 1 (builtin/ls-files.c, \
              `report_path_error`): a query answered no.",
        fires_on: &["git ls-files --error-unmatch src/x.rs", "git -C app ls-files --error-unmatch .env 2>&1"],
        ignores: &["git ls-files", "git add src/x.rs"],
    },
    BenignExit {
        id: "no-crontab",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^crontab (?:-u \S+ )?-l\b",
        printed: Printed::Only(r"^no crontab for \S+"),
        described: None,
        doc: "`crontab -l` of a user who has none prints `no crontab for USER` and exits 1 (cronie \
              src/crontab.c, `list_cmd`): the listing asked for is empty.",
        fires_on: &["crontab -l", "crontab -u www-data -l"],
        ignores: &["crontab -e", "crontab jobs.txt"],
    },
    BenignExit {
        id: "gh-not-logged-in",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^gh auth status\b",
        printed: Printed::Only(r"^You are not logged into any GitHub hosts\.|^To log in, run: gh auth login"),
        described: None,
        doc: "`gh auth status` exits 1 when no account is logged in (`You are not logged into any GitHub hosts. \
              To log in, run: gh auth login`, cli/cli pkg/cmd/auth/status): the status asked for is no.",
        fires_on: &["gh auth status", "gh auth status --hostname github.com"],
        ignores: &["gh auth login", "gh pr status"],
    },
    BenignExit {
        id: "unit-status-inactive",
        rules: EXIT_RULES,
        codes: &[3],
        command: r"^systemctl (?:--?[\w-]+ )*status\b",
        printed: Printed::Some(r"^Active: (?:inactive|failed)\b"),
        described: None,
        doc: "`systemctl status UNIT` of a unit that exists but is not running shows its status (`Active: \
              inactive (dead)` or `failed`) and exits 3: the status was shown. A unit that does not exist (exit \
              4, `Unit x.service could not be found.`) is a missing named thing, and fails (LABELS.md).",
        fires_on: &["systemctl status nginx", "sudo systemctl --no-pager status app"],
        ignores: &["systemctl start nginx", "systemctl is-active nginx"],
    },
    BenignExit {
        id: "described-probe-found-missing",
        rules: EXIT_RULES,
        codes: &[1, 127, 9009],
        command: r"^",
        printed: Printed::Some(
            r"(?i)\bNo module named\b|command not found|: not found$|is not recognized as|executable file not found|\bnot installed\b|Package\(s\) not found|Could not find (?:a version|files for)",
        ),
        described: Some(
            r"(?i)^(?:check|checking|verify|verifying|see|test|testing|confirm|find out|determine)\b[^,;]{0,30}\b(?:if|whether)\b[^,;]{0,80}\b(?:available|installed|present)\b(?:\s+(?:via|with|using|in|on|for|at|under|inside|globally|locally)\b[^,;]{0,40})?\s*\.?$",
        ),
        doc: "A call the agent described as a presence check (`Check if pip is available`, `Verify whether \
              docker is installed`: the `description` argument of Claude Code's, Gemini CLI's, Crush's and \
              Copilot CLI's shell tools) answered that the thing is missing (`No module named pip`, `command not \
              found`, `not installed`): a probe that finds it missing is not a failure (LABELS.md; the corpus's \
              decided case `pip list` described as checking pip). Missing files stay failures: the description \
              must ask only whether software is available, installed or present (`Check if pip is available \
              and install the libraries` asks for more, and its failure stays one).",
        fires_on: &["python3 -m pip list", "docker --version", "uv --version"],
        ignores: &[],
    },
    BenignExit {
        id: "find-partly-unreadable",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^find\s",
        printed: Printed::AnswerBeside(r"^find: ", FIND_WALK_ERROR),
        described: None,
        doc: "GNU find exits 1 when it could not read a directory (`find: '/root': Permission denied`), after \
              printing what it found everywhere else. With paths found and only such errors beside them, the \
              search answered (LABELS.md, as grep exit 2 with its matches).",
        fires_on: &["find / -name nginx.conf 2>&1", "sudo find /var -name '*.log'"],
        ignores: &["findstr x", "git find"],
    },
    BenignExit {
        id: "outdated-listed",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^(?:npm|yarn|pnpm) outdated\b",
        printed: Printed::Some(r"\bPackage\b.*\bCurrent\b.*\bLatest\b"),
        described: None,
        doc: "`npm outdated` (and yarn's, pnpm's) exits 1 when it lists outdated dependencies: the list (its \
              `Package Current Wanted Latest` table) is the answer asked for, not a failure (npm/cli \
              lib/commands/outdated.js). An `npm outdated` that printed no table (`npm ERR! code ENOTFOUND`) \
              failed.",
        fires_on: &["npm outdated", "pnpm outdated --long"],
        ignores: &["npm update", "npm install"],
    },
    BenignExit {
        id: "own-timeout-around-a-server",
        rules: EXIT_RULES,
        codes: &[124],
        command: r"^timeout ",
        printed: Printed::Some(SERVER_STARTED),
        described: None,
        doc: "The agent's own `timeout N` around a server (`timeout 15 npm run dev`) to see it start: GNU \
              timeout exits 124 when it stopped a command still running, and a server that printed where it \
              listens ran as intended (LABELS.md). The entry's pattern sees the command with `timeout ` before \
              it; a harness's own time limit (Codex also reports 124) is not the agent's `timeout` and stays a \
              failure, and so does a build or test that printed no address before it was stopped.",
        fires_on: &["timeout 15 npm run dev", "timeout 10s uvicorn app:app 2>&1"],
        ignores: &["npm run dev", "timeoutx 5"],
    },
    // dpkg-query's listing (`dpkg -l A B C`) exits 1 when one of its
    // patterns matched no package, after listing the others: the listing
    // is the answer, the missing ones its "none" (dpkg-query's
    // `no packages found matching %s`, src/query/main.c).
    BenignExit {
        id: "package-listing-partly-missing",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^dpkg(?:-query)? (?:-l|--list|-W|--show)\b",
        printed: Printed::AnswerBeside(r"^dpkg-query: ", r"^dpkg-query: no packages found matching \S+$"),
        described: None,
        doc: "`dpkg -l A B C` lists the packages it knows and exits 1 when a pattern matched none, saying \
              `dpkg-query: no packages found matching C` (src/query/main.c). The listing answered; the \
              missing ones are its \"none\" (LABELS.md: a lookup).",
        fires_on: &["dpkg -l ibus-mozc fonts-noto-cjk", "dpkg-query -W nginx curl"],
        ignores: &["dpkg -i x.deb", "dpkg --configure -a"],
    },
    // GNU find exits 1 when it could not enter a directory; with nothing
    // found elsewhere, its only lines are those errors: the walk answered
    // "none" where it could read (as `find-partly-unreadable` with matches).
    BenignExit {
        id: "find-found-nothing-readable",
        rules: EXIT_RULES,
        codes: &[1],
        command: r"^find\s",
        printed: Printed::Only(FIND_WALK_ERROR),
        described: None,
        doc: "GNU find, walking a tree and finding nothing, exits 1 because some directories could not be \
              entered (`find: '/home/u/.cache/dconf': Permission denied`). The search answered \"none\" where \
              it could read; a start path that does not exist (`No such file or directory`) still fails it.",
        fires_on: &["find /home/u -type f -name sdk_server", "find / -name '*.pem'"],
        ignores: &["findmnt", "git find"],
    },
    BenignExit {
        id: "search-partly-unreadable",
        rules: EXIT_RULES,
        codes: &[2],
        command: r"^(?:grep|egrep|fgrep|rg)(?:\s|$)",
        printed: Printed::AnswerBeside(
            r"^(?:grep|egrep|fgrep|rg): ",
            r"(?i)permission denied|operation not permitted|is a directory|input/output error|binary file|no such device|too many levels of symbolic links",
        ),
        described: None,
        doc: "grep and rg exit 2 when a file could not be read (a permission, a socket, a dangling link) even \
              when they printed the matches asked for. With the matches there and only such errors beside \
              them, the search answered; an error about the call's own arguments (a pattern taken as a path) \
              still fails it.",
        fires_on: &["grep -rn API_URL /etc/app", "rg -n TODO /"],
        ignores: &["git grep x", "grepx a"],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_says_where_it_listens() {
        let re = regex::Regex::new(SERVER_STARTED).unwrap();
        for line in [
            "  ➜  Local:   http://localhost:5173/",
            "INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)",
            "Server listening on port 3000",
            "listening on 0.0.0.0:8080",
            " ✓ Ready in 2.1s",
            "INFO:     Application startup complete.",
        ] {
            assert!(re.is_match(line), "{line:?}");
        }
        for line in
            ["running on 12 workers", "Tests: 3 passed, up at 50%", "collected 40 items", "RUN  v2.1.1 /home/u/app"]
        {
            assert!(!re.is_match(line), "{line:?}");
        }
    }

    #[test]
    fn kill_usage_is_not_kill_failing() {
        let re = regex::Regex::new(KILL_GIVEN_NO_PID).unwrap();
        for line in [
            "Usage:",
            "kill [options] <pid> [...]",
            "-q, --queue <value>    integer value to be sent",
            "usage: kill [-s signal_name] pid ...",
            "bash: line 1: kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]",
        ] {
            assert!(re.is_match(line), "{line:?}");
        }
        for line in ["-bash: kill: (1) - Operation not permitted", "kill: (4242) - No such process"] {
            assert!(!re.is_match(line), "{line:?}");
        }
    }
}
