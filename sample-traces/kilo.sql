-- A small Kilo CLI trace database (kilo.db): opencode 1.2's schema, with the failure texts Kilo 7.x writes.
-- Build it with: sqlite3 sample-traces/kilo.db < sample-traces/kilo.sql
-- Kilo is told from opencode by the database's name (kilo.db). Times are epoch MILLISECONDS.
-- Hand count: 9 calls (one unpaired), 5 errors: 3 flagged (2 missing files, 1 stopped by the user),
-- 2 hidden (gradle exit 1, a timeout in the sub-agent); grep's exit 1 is no error.
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
  title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);

INSERT INTO project VALUES ('prj_k1', '/home/u/app', 'git', 'app', 1773298800000, 1773298800000);
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES
 ('ses_k01main', 'prj_k1', NULL, 'android-app', '/home/u/app', 'Set up the Android app', '7.0.46', 1773298800000, 1773299000000),
 ('ses_k02sub', 'prj_k1', 'ses_k01main', 'check-build', '/home/u/app', 'Check the build', '7.0.46', 1773298900000, 1773298990000);

INSERT INTO message VALUES
 ('msg_k01', 'ses_k01main', 1773298801000, 1773298801000, '{"role":"user","time":{"created":1773298801000},"agent":"code","model":{"providerID":"kilo","modelID":"example/model"}}'),
 ('msg_k02', 'ses_k01main', 1773298802000, 1773298890000, '{"role":"assistant","time":{"created":1773298802000},"providerID":"kilo","mode":"code","agent":"code"}'),
 ('msg_k11', 'ses_k02sub', 1773298901000, 1773298990000, '{"role":"assistant","time":{"created":1773298901000},"providerID":"kilo","mode":"code","agent":"code"}');

INSERT INTO part VALUES
 ('prt_k01', 'msg_k01', 'ses_k01main', 1773298801000, 1773298801000, '{"type":"text","text":"set up the project from PROJECT.md"}'),
-- 1, 2. reading files that are not there: status error (flagged, not-found)
 ('prt_k02', 'msg_k02', 'ses_k01main', 1773298803000, 1773298803100,
  '{"type":"tool","callID":"call_k01","tool":"read","state":{"status":"error","input":{"filePath":"/home/u/app/PROJECT.md"},"error":"Error: File not found: /home/u/app/PROJECT.md","time":{"start":1773298803000,"end":1773298803100}}}'),
 ('prt_k03', 'msg_k02', 'ses_k01main', 1773298804000, 1773298804100,
  '{"type":"tool","callID":"call_k02","tool":"read","state":{"status":"error","input":{"filePath":"/home/u/app/AGENTS.md"},"error":"Error: File not found: /home/u/app/AGENTS.md","time":{"start":1773298804000,"end":1773298804100}}}'),
-- 3. a glob that finds the files
 ('prt_k04', 'msg_k02', 'ses_k01main', 1773298805000, 1773298805100,
  '{"type":"tool","callID":"call_k03","tool":"glob","state":{"status":"completed","input":{"pattern":"*.md"},"output":"/home/u/app/README.md\n/home/u/app/MEMORY.md","title":"","metadata":{"count":2},"time":{"start":1773298805000,"end":1773298805100}}}'),
-- 4. a write the user stopped: status error, Tool execution aborted (flagged, user-rejected)
 ('prt_k05', 'msg_k02', 'ses_k01main', 1773298806000, 1773298830000,
  '{"type":"tool","callID":"call_k04","tool":"write","state":{"status":"error","input":{"filePath":"/home/u/app/build.gradle.kts","content":"plugins {}"},"error":"Tool execution aborted","time":{"start":1773298806000,"end":1773298830000}}}'),
-- 5. grep finds nothing: exit 1 is benign; the word error in the pattern is no failure
 ('prt_k06', 'msg_k02', 'ses_k01main', 1773298831000, 1773298831200,
  '{"type":"tool","callID":"call_k05","tool":"bash","state":{"status":"completed","input":{"command":"grep -rn \"Error:\" src"},"output":"","title":"grep","metadata":{"exit":1},"time":{"start":1773298831000,"end":1773298831200}}}'),
-- 6. the build fails: completed, metadata.exit 1 (hidden)
 ('prt_k07', 'msg_k02', 'ses_k01main', 1773298832000, 1773298860000,
  '{"type":"tool","callID":"call_k06","tool":"bash","state":{"status":"completed","input":{"command":"./gradlew assembleDebug"},"output":"FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task '':app:compileDebugKotlin''.\n\nBUILD FAILED in 27s\n","title":"gradle","metadata":{"exit":1},"time":{"start":1773298832000,"end":1773298860000}}}'),
-- 7. a sub-agent checks the build
 ('prt_k08', 'msg_k02', 'ses_k01main', 1773298861000, 1773298990000,
  '{"type":"tool","callID":"call_k07","tool":"task","state":{"status":"completed","input":{"description":"Check the build","prompt":"Why does the build fail?"},"output":"The Kotlin plugin version is missing.","title":"Check the build","metadata":{"sessionId":"ses_k02sub"},"time":{"start":1773298861000,"end":1773298990000}}}'),
-- 8. still running when the session was saved: an unpaired call
 ('prt_k09', 'msg_k02', 'ses_k01main', 1773298995000, 1773298995000,
  '{"type":"tool","callID":"call_k08","tool":"bash","state":{"status":"running","input":{"command":"./gradlew test"},"title":"gradle","time":{"start":1773298995000}}}'),
-- the sub-agent: a command that timed out (completed, hidden timeout)
 ('prt_k11', 'msg_k11', 'ses_k02sub', 1773298902000, 1773298962000,
  '{"type":"tool","callID":"call_k11","tool":"bash","state":{"status":"completed","input":{"command":"./gradlew dependencies"},"output":"Downloading https://services.gradle.org/distributions/gradle-8.7-bin.zip\n\n(Command timed out after 60000 ms)","title":"gradle","metadata":{"exit":null},"time":{"start":1773298902000,"end":1773298962000}}}');
