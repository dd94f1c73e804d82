-- A small opencode (1.2+) trace database (opencode.db), in the shape research/sqlite-formats.md §4 documents.
-- Build it with: sqlite3 sample-traces/opencode.db < sample-traces/opencode.sql
-- Times are epoch MILLISECONDS. One `part` row of type "tool" holds a call and its result.
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
  title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_session_idx ON part (session_id);

INSERT INTO project VALUES ('prj_1', '/home/u/web', 'git', 'web', 1771060000000, 1771060000000);
INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES
 ('ses_01main', 'prj_1', NULL, 'fix-tests', '/home/u/web', 'Fix the tests', '1.2.3', 1771060000000, 1771060100000),
 ('ses_02sub', 'prj_1', 'ses_01main', 'find-config', '/home/u/web', 'Find the config', '1.2.3', 1771060050000, 1771060060000);

INSERT INTO message VALUES
 ('msg_01', 'ses_01main', 1771060001000, 1771060001000, '{"role":"user","time":{"created":1771060001000}}'),
 ('msg_02', 'ses_01main', 1771060002000, 1771060030000, '{"role":"assistant","time":{"created":1771060002000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","cost":0.0213,"tokens":{"input":12,"output":410,"reasoning":0,"cache":{"read":14200,"write":2300}}}'),
 ('msg_03', 'ses_01main', 1771060040000, 1771060090000, '{"role":"assistant","time":{"created":1771060040000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","cost":0.0187,"tokens":{"input":8,"output":280,"reasoning":0,"cache":{"read":16500,"write":1800}}}'),
 ('msg_11', 'ses_02sub', 1771060051000, 1771060059000, '{"role":"assistant","time":{"created":1771060051000},"modelID":"qwen3-coder-plus","providerID":"alibaba","tokens":{"input":3100,"output":150,"reasoning":0,"cache":{"read":0,"write":0}}}');

INSERT INTO part VALUES
 ('prt_01', 'msg_01', 'ses_01main', 1771060001000, 1771060001000, '{"type":"text","text":"the tests fail, fix them"}'),
 ('prt_02', 'msg_02', 'ses_01main', 1771060002000, 1771060002000, '{"type":"step-start"}'),
-- 1. npm test fails: completed, metadata.exit 1 (hidden nonzero-exit)
 ('prt_03', 'msg_02', 'ses_01main', 1771060003000, 1771060009000,
  '{"type":"tool","callID":"toolu_01","tool":"bash","state":{"status":"completed","input":{"command":"npm test","description":"Run tests"},"output":"FAIL src/app.test.ts\n  1 failed, 12 passed\n","title":"npm test","metadata":{"exit":1,"description":"Run tests"},"time":{"start":1771060003000,"end":1771060009000}}}'),
-- 2. rg finds nothing: exit 1 is benign
 ('prt_04', 'msg_02', 'ses_01main', 1771060010000, 1771060010500,
  '{"type":"tool","callID":"toolu_02","tool":"bash","state":{"status":"completed","input":{"command":"rg -n \"describe.only\" src"},"output":"","title":"rg","metadata":{"exit":1},"time":{"start":1771060010000,"end":1771060010500}}}'),
-- 3. reading a missing file: status error (flagged)
 ('prt_05', 'msg_02', 'ses_01main', 1771060011000, 1771060011100,
  '{"type":"tool","callID":"toolu_03","tool":"read","state":{"status":"error","input":{"filePath":"/home/u/web/src/app.spec.ts"},"error":"Error: ENOENT: no such file or directory, open ''/home/u/web/src/app.spec.ts''","time":{"start":1771060011000,"end":1771060011100}}}'),
-- 4. a command that timed out: completed, no exit status (hidden timeout)
 ('prt_06', 'msg_02', 'ses_01main', 1771060012000, 1771060132000,
  '{"type":"tool","callID":"toolu_04","tool":"bash","state":{"status":"completed","input":{"command":"npm run e2e"},"output":"starting browser...\n\n(Command timed out after 120000 ms)","title":"npm run e2e","metadata":{"exit":null},"time":{"start":1771060012000,"end":1771060132000}}}'),
-- 5. a sub-agent, and a build that succeeds
 ('prt_07', 'msg_03', 'ses_01main', 1771060040000, 1771060060000,
  '{"type":"tool","callID":"toolu_05","tool":"task","state":{"status":"completed","input":{"description":"Find the config","prompt":"Where is the jest config?"},"output":"jest.config.ts at the root","title":"Find the config","metadata":{"sessionId":"ses_02sub"},"time":{"start":1771060040000,"end":1771060060000}}}'),
 ('prt_08', 'msg_03', 'ses_01main', 1771060061000, 1771060070000,
  '{"type":"tool","callID":"toolu_06","tool":"bash","state":{"status":"completed","input":{"command":"npm run build"},"output":"built in 2.1s\n","title":"npm run build","metadata":{"exit":0},"time":{"start":1771060061000,"end":1771060070000}}}'),
-- 6. interrupted while running: an unpaired call
 ('prt_09', 'msg_03', 'ses_01main', 1771060080000, 1771060080000,
  '{"type":"tool","callID":"toolu_07","tool":"bash","state":{"status":"running","input":{"command":"npm test -- --watch"},"title":"npm test","time":{"start":1771060080000}}}'),
-- the sub-agent session: a glob and a failing command (exit 2, hidden)
 ('prt_11', 'msg_11', 'ses_02sub', 1771060052000, 1771060052100,
  '{"type":"tool","callID":"toolu_11","tool":"glob","state":{"status":"completed","input":{"pattern":"jest.config.*"},"output":"/home/u/web/jest.config.ts","title":"","metadata":{"count":1},"time":{"start":1771060052000,"end":1771060052100}}}'),
 ('prt_12', 'msg_11', 'ses_02sub', 1771060053000, 1771060053300,
  '{"type":"tool","callID":"toolu_12","tool":"bash","state":{"status":"completed","input":{"command":"cat jest.config.js"},"output":"cat: jest.config.js: No such file or directory\n","title":"cat","metadata":{"exit":1},"time":{"start":1771060053000,"end":1771060053300}}}');
