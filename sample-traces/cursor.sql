-- A Cursor global state.vscdb (agent era) in the shape research/formats-2.md §2 documents (third-party
-- reverse engineering: EXPERIMENTAL). Build it with: sqlite3 sample-traces/cursor.db < sample-traces/cursor.sql
-- Read only with --source-format cursor. ItemTable holds secrets and is never read: the fake token and the
-- bubble-shaped value below must not show up in any output.
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable VALUES
 ('cursorAuth/accessToken', 'SECRET-TOKEN-never-read'),
 ('bubbleId:c9:z1', '{"toolFormerData":{"toolCallId":"trap","name":"never_read","status":"error","result":"{}"}}');

INSERT INTO cursorDiskKV VALUES
 ('composerData:c1', '{"_v":10,"composerId":"c1","name":"Fix tests","createdAt":1775469600000,"lastUpdatedAt":1775469700000,"status":"completed","fullConversationHeadersOnly":[{"bubbleId":"u1","type":1},{"bubbleId":"b3","type":2},{"bubbleId":"b1","type":2},{"bubbleId":"b2","type":2},{"bubbleId":"b5","type":2},{"bubbleId":"b6","type":2}],"subComposerIds":[],"blobEncryptionKey":"never-printed"}'),
 ('bubbleId:c1:u1', '{"_v":3,"type":1,"bubbleId":"u1","text":"make the tests pass","createdAt":"2026-04-06T10:00:00.000Z"}'),
-- 1. an edit that failed: flagged (it comes first in the conversation, though its key sorts later)
 ('bubbleId:c1:b3', '{"_v":3,"type":2,"bubbleId":"b3","createdAt":"2026-04-06T10:00:05.000Z","toolFormerData":{"tool":38,"toolCallId":"toolu_03","toolIndex":0,"modelCallId":"m1","status":"error","name":"search_replace","rawArgs":"{\"file_path\":\"src/a.ts\",\"old_string\":\"retrun\",\"new_string\":\"return\"}","result":"{\"error\":\"old_string not found in src/a.ts\"}","additionalData":{"status":"error"}}}'),
-- 2. a command that exited 1 under status completed: hidden
 ('bubbleId:c1:b1', '{"_v":3,"type":2,"bubbleId":"b1","createdAt":"2026-04-06T10:00:10.000Z","toolFormerData":{"tool":15,"toolCallId":"toolu_01","toolIndex":0,"modelCallId":"m2","status":"completed","name":"run_terminal_cmd","rawArgs":"{\"command\":\"npm test\",\"is_background\":false}","result":"{\"output\":\"1 failing\\n  AssertionError: expected 2\",\"exitCodeV2\":1,\"rejected\":false,\"notInterrupted\":true,\"endedReason\":\"RUN_TERMINAL_COMMAND_ENDED_REASON_EXECUTION_COMPLETED\"}","additionalData":{"status":"success"}}}'),
-- 3. grep finding nothing (exit 1): benign
 ('bubbleId:c1:b2', '{"_v":3,"type":2,"bubbleId":"b2","createdAt":"2026-04-06T10:00:20.000Z","toolFormerData":{"tool":15,"toolCallId":"toolu_02","status":"completed","name":"run_terminal_cmd","rawArgs":"{\"command\":\"grep -rn TODO src\"}","result":"{\"output\":\"\",\"exitCodeV2\":1,\"rejected\":false}"}}'),
-- 4. a read that no header lists: read, ordered last
 ('bubbleId:c1:b4', '{"_v":3,"type":2,"bubbleId":"b4","createdAt":"2026-04-06T10:00:25.000Z","toolFormerData":{"tool":40,"toolCallId":"toolu_04","status":"completed","name":"read_file","rawArgs":"{\"target_file\":\"src/a.ts\"}","result":"{\"contents\":\"export const a = 1;\"}"}}'),
-- 5. a command the user rejected: flagged
 ('bubbleId:c1:b5', '{"_v":3,"type":2,"bubbleId":"b5","createdAt":"2026-04-06T10:00:30.000Z","toolFormerData":{"tool":15,"toolCallId":"toolu_05","status":"completed","name":"run_terminal_cmd","rawArgs":"{\"command\":\"rm -rf build\"}","userDecision":"rejected","result":"{\"rejected\":true}"}}'),
-- 6. still running when the state was saved: unpaired
 ('bubbleId:c1:b6', '{"_v":3,"type":2,"bubbleId":"b6","createdAt":"2026-04-06T10:00:40.000Z","toolFormerData":{"tool":15,"toolCallId":"toolu_06","status":"loading","name":"run_terminal_cmd","rawArgs":"{\"command\":\"npm run build\"}"}}'),
-- 7. a null value (seen in real files) and a value that is not JSON (counted, skipped)
 ('bubbleId:c1:b7', 'null'),
 ('bubbleId:c1:b8', '{"_v":3,"type":2,"toolFormerData":{"status":'),
 ('checkpointId:c1:k1', '{"files":[]}'),
 ('messageRequestContext:c1:b1', '{"gitStatusRaw":""}'),
 ('composerData:c2', '{"_v":10,"composerId":"c2","fullConversationHeadersOnly":[{"bubbleId":"x1","type":2}]}'),
-- c2: an MCP tool (tool 0) that failed: flagged
 ('bubbleId:c2:x1', '{"_v":3,"type":2,"bubbleId":"x1","createdAt":"2026-04-07T09:00:00.000Z","toolFormerData":{"tool":0,"toolCallId":"toolu_x1","status":"error","name":"mcp_github_get_issue","rawArgs":"{\"number\":4711}","result":"{\"error\":\"MCP error -32603: Not Found\"}"}}');
