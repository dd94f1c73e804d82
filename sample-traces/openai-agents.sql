-- An OpenAI Agents SDK SQLiteSession database (conversations.db), in the shape research/formats-2.md §3 documents.
-- Build it with: sqlite3 sample-traces/openai-agents.db < sample-traces/openai-agents.sql
-- One Responses-API item per row (message_data, JSON text); created_at is SQLite CURRENT_TIMESTAMP (UTC).
-- Function tools have no error flag: their failures are ordinary output text.
CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
  message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX idx_agent_messages_session_id ON agent_messages(session_id, id);

INSERT INTO agent_sessions (session_id, created_at, updated_at) VALUES
 ('conv-1', '2026-04-03 10:00:00', '2026-04-03 10:05:00'),
 ('conv-2', '2026-04-03 11:00:00', '2026-04-03 11:01:00');

INSERT INTO agent_messages (session_id, message_data, created_at) VALUES
 ('conv-1', '{"content": "Plan my trip and fix the build", "role": "user"}', '2026-04-03 10:00:00'),
 ('conv-1', '{"arguments":"{\"city\":\"Oslo\"}","call_id":"call_1","name":"get_weather","type":"function_call","id":"fc_1","status":"completed"}', '2026-04-03 10:00:01'),
 ('conv-1', '{"call_id": "call_1", "output": "Sunny, 21C", "type": "function_call_output"}', '2026-04-03 10:00:01'),
-- 1. the default failure function: hidden
 ('conv-1', '{"arguments":"{\"url\":\"https://example.com\"}","call_id":"call_2","name":"fetch_page","type":"function_call","id":"fc_2","status":"completed"}', '2026-04-03 10:00:02'),
 ('conv-1', '{"call_id": "call_2", "output": "An error occurred while running the tool. Please try again. Error: HTTPError(''502 Bad Gateway'')", "type": "function_call_output"}', '2026-04-03 10:00:03'),
-- 2. arguments that did not parse: hidden
 ('conv-1', '{"arguments":"{\"order\": ","call_id":"call_3","name":"lookup_order","type":"function_call","id":"fc_3","status":"completed"}', '2026-04-03 10:00:04'),
 ('conv-1', '{"call_id": "call_3", "output": "An error occurred while parsing tool arguments. Please try again with valid JSON. Error: Expecting value: line 1 column 11 (char 10)", "type": "function_call_output"}', '2026-04-03 10:00:04'),
-- 3. a timeout with error_as_result, output as a list of parts: hidden
 ('conv-1', '{"arguments":"{\"url\":\"https://slow.example\"}","call_id":"call_4","name":"fetch_page","type":"function_call","id":"fc_4","status":"completed"}', '2026-04-03 10:00:05'),
 ('conv-1', '{"call_id": "call_4", "output": [{"type": "input_text", "text": "Tool ''fetch_page'' timed out after 30.0 seconds."}], "type": "function_call_output"}', '2026-04-03 10:00:35'),
-- 4. a shell command exiting 101 (hidden), and grep finding nothing (exit 1, benign)
 ('conv-1', '{"type":"shell_call","call_id":"sh_1","action":{"commands":["cargo test"],"timeout_ms":120000},"status":"completed"}', '2026-04-03 10:01:00'),
 ('conv-1', '{"type": "shell_call_output", "call_id": "sh_1", "output": [{"stdout": "running 3 tests\ntest parse ... FAILED", "stderr": "error: test failed", "outcome": {"type": "exit", "exit_code": 101}}]}', '2026-04-03 10:01:20'),
 ('conv-1', '{"type":"shell_call","call_id":"sh_2","action":{"commands":["grep -rn TODO src"]},"status":"completed"}', '2026-04-03 10:01:21'),
 ('conv-1', '{"type": "shell_call_output", "call_id": "sh_2", "output": [{"stdout": "", "stderr": "", "outcome": {"type": "exit", "exit_code": 1}}]}', '2026-04-03 10:01:21'),
-- 5. a patch that does not apply: flagged (status failed)
 ('conv-1', '{"type":"apply_patch_call","call_id":"ap_1","operation":{"type":"update_file","path":"src/lib.rs","diff":"@@\n-fn parse()\n+fn parse_all()"},"status":"completed"}', '2026-04-03 10:01:30'),
 ('conv-1', '{"type": "apply_patch_call_output", "call_id": "ap_1", "status": "failed", "output": "Invalid context: could not find the lines to replace in src/lib.rs"}', '2026-04-03 10:01:30'),
-- 6. a hosted MCP call with an error: flagged
 ('conv-1', '{"type":"mcp_call","id":"mcp_1","server_label":"github","name":"get_issue","arguments":"{\"number\":4711}","output":null,"error":"Issue 4711 not found"}', '2026-04-03 10:02:00'),
-- 7. a handoff is an ordinary call
 ('conv-1', '{"arguments":"{}","call_id":"call_5","name":"transfer_to_billing_agent","type":"function_call","id":"fc_5","status":"completed"}', '2026-04-03 10:02:10'),
 ('conv-1', '{"call_id": "call_5", "output": "{\"assistant\": \"Billing agent\"}", "type": "function_call_output"}', '2026-04-03 10:02:10'),
-- 8. a call a human declined: hidden
 ('conv-1', '{"arguments":"{\"path\":\"/etc/hosts\"}","call_id":"call_6","name":"delete_file","type":"function_call","id":"fc_6","status":"completed"}', '2026-04-03 10:03:00'),
 ('conv-1', '{"call_id": "call_6", "output": "Tool execution was not approved.", "type": "function_call_output"}', '2026-04-03 10:03:05'),
-- 9. an EncryptedSession item and a row that is not JSON: counted malformed, never guessed
 ('conv-1', '{"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": "gAAAAABm0c2f3YkVJQ4yX0VxQWZQ"}', '2026-04-03 10:04:00'),
 ('conv-1', '{"type": "function_call_output", "call_id": "call_7", "output": "tr', '2026-04-03 10:04:01'),
-- 10. a call whose run was interrupted: unpaired
 ('conv-1', '{"arguments":"{\"query\":\"hotels\"}","call_id":"call_8","name":"search","type":"function_call","id":"fc_8","status":"completed"}', '2026-04-03 10:05:00'),
-- conv-2: a custom tool and a hosted web search that failed
 ('conv-2', '{"content": "Summarise the release notes", "role": "user"}', '2026-04-03 11:00:00'),
 ('conv-2', '{"type":"custom_tool_call","call_id":"ct_1","name":"grammar_check","input":"Release 2.0 adds ..."}', '2026-04-03 11:00:01'),
 ('conv-2', '{"type": "custom_tool_call_output", "call_id": "ct_1", "output": "No problems found."}', '2026-04-03 11:00:02'),
 ('conv-2', '{"type":"web_search_call","id":"ws_1","status":"failed","action":{"type":"search","query":"release notes 2.0"}}', '2026-04-03 11:00:05');
