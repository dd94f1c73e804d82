-- A Google ADK session database (<agent>/.adk/session.db, SqliteSessionService), in the shape
-- research/formats-2.md §4 documents. Build it with: sqlite3 sample-traces/adk.db < sample-traces/adk.sql
-- event_data is Event.model_dump_json(exclude_none=True); timestamp is Unix seconds (REAL).
-- ADK has no error flag: only an MCP result's isError; `{"error": …}` and `{"status": "error"}` are content.
CREATE TABLE app_states (app_name TEXT PRIMARY KEY, state TEXT NOT NULL, update_time REAL NOT NULL);
CREATE TABLE user_states (app_name TEXT NOT NULL, user_id TEXT NOT NULL, state TEXT NOT NULL, update_time REAL NOT NULL,
  PRIMARY KEY (app_name, user_id));
CREATE TABLE sessions (app_name TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL, state TEXT NOT NULL,
  create_time REAL NOT NULL, update_time REAL NOT NULL, PRIMARY KEY (app_name, user_id, id));
CREATE TABLE events (id TEXT NOT NULL, app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
  invocation_id TEXT NOT NULL, timestamp REAL NOT NULL, event_data TEXT NOT NULL,
  PRIMARY KEY (app_name, user_id, session_id, id),
  FOREIGN KEY (app_name, user_id, session_id) REFERENCES sessions(app_name, user_id, id) ON DELETE CASCADE);

INSERT INTO sessions VALUES
 ('weather_agent', 'u1', 's-1', '{}', 1775210400.0, 1775210500.0),
 ('weather_agent', 'u2', 's-2', '{}', 1775296800.0, 1775296810.0);

INSERT INTO events VALUES
 ('e01', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210400.1,
  '{"id":"e01","invocation_id":"inv-1","author":"user","timestamp":1775210400.1,"content":{"role":"user","parts":[{"text":"Weather in New York and Paris? Then clean up."}]}}'),
 ('e02', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210401.2,
  '{"id":"e02","invocation_id":"inv-1","author":"weather_agent","timestamp":1775210401.2,"content":{"role":"model","parts":[{"function_call":{"id":"adk-a1","name":"get_weather","args":{"city":"New York"}}}]}}'),
 ('e03', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210401.5,
  '{"id":"e03","invocation_id":"inv-1","author":"weather_agent","timestamp":1775210401.5,"content":{"role":"user","parts":[{"function_response":{"id":"adk-a1","name":"get_weather","response":{"status":"success","report":"Sunny, 25 C"}}}]}}'),
-- 1. the documented tool convention {"status": "error"}: hidden
 ('e04', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210402.0,
  '{"id":"e04","invocation_id":"inv-1","author":"weather_agent","timestamp":1775210402.0,"content":{"role":"model","parts":[{"function_call":{"id":"adk-a2","name":"get_weather","args":{"city":"Paris"}}}]}}'),
 ('e05', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210402.3,
  '{"id":"e05","invocation_id":"inv-1","author":"weather_agent","timestamp":1775210402.3,"content":{"role":"user","parts":[{"function_response":{"id":"adk-a2","name":"get_weather","response":{"status":"error","error_message":"Weather information for ''Paris'' is not available."}}}]}}'),
-- 2. ADK's own {"error": …} for missing mandatory arguments: hidden
 ('e06', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210403.0,
  '{"id":"e06","invocation_id":"inv-1","author":"weather_agent","timestamp":1775210403.0,"content":{"role":"model","parts":[{"function_call":{"id":"adk-a3","name":"get_current_time","args":{}}}]}}'),
 ('e07', 'weather_agent', 'u1', 's-1', 'inv-1', 1775210403.1,
  '{"id":"e07","invocation_id":"inv-1","author":"weather_agent","timestamp":1775210403.1,"content":{"role":"user","parts":[{"function_response":{"id":"adk-a3","name":"get_current_time","response":{"error":"Invoking `get_current_time()` failed as the following mandatory input parameters are not present:\ncity\nYou could retry calling this tool, but it is IMPORTANT for you to provide all the mandatory parameters."}}}]}}'),
-- 3. parallel calls answered in one event: an MCP isError (flagged) and a non-dict return ({"result": …})
 ('e08', 'weather_agent', 'u1', 's-1', 'inv-2', 1775210410.0,
  '{"id":"e08","invocation_id":"inv-2","author":"weather_agent","timestamp":1775210410.0,"content":{"role":"model","parts":[{"function_call":{"id":"adk-a4","name":"get_issue","args":{"repo":"u/app","number":4711}}},{"function_call":{"id":"adk-a5","name":"fetch_url","args":{"url":"https://example.com"}}}]}}'),
 ('e09', 'weather_agent', 'u1', 's-1', 'inv-2', 1775210411.0,
  '{"id":"e09","invocation_id":"inv-2","author":"weather_agent","timestamp":1775210411.0,"content":{"role":"user","parts":[{"function_response":{"id":"adk-a4","name":"get_issue","response":{"content":[{"type":"text","text":"Not Found: issue 4711"}],"isError":true}}},{"function_response":{"id":"adk-a5","name":"fetch_url","response":{"result":"<html>Example Domain</html>"}}}]}}'),
-- 4. an MCP result not flagged, whose text is an error: hidden
 ('e10', 'weather_agent', 'u1', 's-1', 'inv-2', 1775210412.0,
  '{"id":"e10","invocation_id":"inv-2","author":"weather_agent","timestamp":1775210412.0,"content":{"role":"model","parts":[{"function_call":{"id":"adk-a6","name":"create_issue","args":{"repo":"u/app","title":"x"}}}]}}'),
 ('e11', 'weather_agent', 'u1', 's-1', 'inv-2', 1775210412.5,
  '{"id":"e11","invocation_id":"inv-2","author":"weather_agent","timestamp":1775210412.5,"content":{"role":"user","parts":[{"function_response":{"id":"adk-a6","name":"create_issue","response":{"content":[{"type":"text","text":"Error: repository u/app is archived"}],"isError":false}}}]}}'),
-- 5. a transfer to a sub-agent is an ordinary call in the same session
 ('e12', 'weather_agent', 'u1', 's-1', 'inv-3', 1775210420.0,
  '{"id":"e12","invocation_id":"inv-3","author":"weather_agent","timestamp":1775210420.0,"content":{"role":"model","parts":[{"function_call":{"id":"adk-a7","name":"transfer_to_agent","args":{"agent_name":"cleanup_agent"}}}]}}'),
 ('e13', 'weather_agent', 'u1', 's-1', 'inv-3', 1775210420.1,
  '{"id":"e13","invocation_id":"inv-3","author":"weather_agent","timestamp":1775210420.1,"actions":{"transfer_to_agent":"cleanup_agent"},"content":{"role":"user","parts":[{"function_response":{"id":"adk-a7","name":"transfer_to_agent","response":{"result":null}}}]}}'),
-- 6. a refused confirmation: hidden; camelCase keys (by_alias writers) are read too
 ('e14', 'weather_agent', 'u1', 's-1', 'inv-3', 1775210421.0,
  '{"id":"e14","invocationId":"inv-3","author":"cleanup_agent","branch":"weather_agent.cleanup_agent","timestamp":1775210421.0,"content":{"role":"model","parts":[{"functionCall":{"id":"adk-a8","name":"delete_file","args":{"path":"/tmp/report.csv"}}}]}}'),
 ('e15', 'weather_agent', 'u1', 's-1', 'inv-3', 1775210425.0,
  '{"id":"e15","invocationId":"inv-3","author":"cleanup_agent","branch":"weather_agent.cleanup_agent","timestamp":1775210425.0,"content":{"role":"user","parts":[{"functionResponse":{"id":"adk-a8","name":"delete_file","response":{"error":"This tool call is rejected."}}}]}}'),
-- 7. a long-running call never answered (unpaired), and a row that is not JSON (counted, skipped)
 ('e16', 'weather_agent', 'u1', 's-1', 'inv-4', 1775210430.0,
  '{"id":"e16","invocation_id":"inv-4","author":"cleanup_agent","timestamp":1775210430.0,"long_running_tool_ids":["adk-a9"],"content":{"role":"model","parts":[{"function_call":{"id":"adk-a9","name":"ask_for_approval","args":{"amount":500}}}]}}'),
 ('e17', 'weather_agent', 'u1', 's-1', 'inv-4', 1775210431.0, '{"id":"e17","content":{"role":"user","parts":[{"function_resp'),
-- s-2: a model error on the event (error_code) is not a tool error
 ('e21', 'weather_agent', 'u2', 's-2', 'inv-9', 1775296800.5,
  '{"id":"e21","invocation_id":"inv-9","author":"weather_agent","timestamp":1775296800.5,"content":{"role":"model","parts":[{"function_call":{"id":"adk-b1","name":"get_weather","args":{"city":"Oslo"}}}]}}'),
 ('e22', 'weather_agent', 'u2', 's-2', 'inv-9', 1775296801.0,
  '{"id":"e22","invocation_id":"inv-9","author":"weather_agent","timestamp":1775296801.0,"content":{"role":"user","parts":[{"function_response":{"id":"adk-b1","name":"get_weather","response":{"status":"success","report":"Cloudy, 8 C"}}}]}}'),
 ('e23', 'weather_agent', 'u2', 's-2', 'inv-9', 1775296802.0,
  '{"id":"e23","invocation_id":"inv-9","author":"weather_agent","timestamp":1775296802.0,"error_code":"SAFETY","error_message":"blocked"}');
