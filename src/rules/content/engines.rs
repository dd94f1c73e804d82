//! Content rules: the messages that database engines and client libraries
//! raise, handed back by a tool as its whole answer (`return str(e)`).
//! Each is the emitter's own wording, read from its source; the first line
//! must be the message, so data that quotes one is an answer.

use super::ContentRule;
use crate::rules::{Precision, Reads};

pub(super) const RULES: &[ContentRule] = &[
    ContentRule {
        id: "sql-engine-error",
        pattern: r#"\A(?:(?:sqlite3\.|psycopg2?\.(?:errors\.)?|psycopg\.(?:errors\.)?|asyncpg\.(?:exceptions\.)?)?[A-Z]\w*(?:Error|Exception|Violation): |ERROR: {1,2})?(?:no such (?:table|column|function|index|view|module): \S[^\n]*|(?:UNIQUE|NOT NULL|CHECK|FOREIGN KEY|PRIMARY KEY) constraint failed(?:: [^\n]*)?|near "[^"\n]*": syntax error|table \S+ has no column named \S+|table \S+ has \d+ columns but \d+ values were supplied|ambiguous column name: \S+|(?:attempt to write a readonly database|database is locked|database disk image is malformed|unable to open database file|file is not a database)|(?:relation|column|function|schema|type|database|role|operator|index|sequence|view|table|constraint|extension) "[^"\n]+"(?: of relation "[^"\n]+")? does not exist|function [\w."]+\([^)\n]*\) does not exist|operator does not exist: [^\n]+|syntax error at (?:or near "[^\n]*"|end of input)|duplicate key value violates unique constraint "[^"\n]+"|null value in column "[^"\n]+"(?: of relation "[^"\n]+")? violates not-null constraint|(?:insert or update|update or delete) on table "[^"\n]+" violates foreign key constraint "[^"\n]+"|new row for relation "[^"\n]+" violates check constraint "[^"\n]+"|invalid input syntax for(?: type)? [\w ]+: "[^\n]*"|current transaction is aborted, commands ignored until end of transaction block|column reference "[^"\n]+" is ambiguous|missing FROM-clause entry for table "[^"\n]+"|column "[^"\n]+" must appear in the GROUP BY clause or be used in an aggregate function|value too long for type character(?: varying)?\(\d+\)|there is no unique or exclusion constraint matching the ON CONFLICT specification)[ \t]*(?:\n|\z)"#,
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A database tool that hands back the engine's error as its whole answer (`return str(e)`), with \
              no `Error:` of its own: SQLite's messages (sqlite.org `sqlite3.c`: `no such table: users`, \
              `UNIQUE constraint failed: users.email`, `near \"SELEC\": syntax error`, `database is locked`), \
              PostgreSQL's (its backend's `ereport` texts, as psycopg and asyncpg pass them on: `relation \
              \"users\" does not exist`, `syntax error at or near \"SELEC\"`, `duplicate key value violates \
              unique constraint \"…\"`, `current transaction is aborted, …`), with or without the driver's \
              exception name. The message must be the first line; PostgreSQL's `LINE 1:` context may follow.",
        fires_on: &[
            "no such table: users",
            "no such column: emal",
            "UNIQUE constraint failed: users.email",
            "near \"SELEC\": syntax error",
            "sqlite3.OperationalError: database is locked",
            "relation \"users\" does not exist\nLINE 1: SELECT * FROM users\n                      ^\n",
            "column \"emal\" does not exist",
            "ERROR:  syntax error at or near \"SELEC\"\nLINE 1: SELEC 1\n        ^",
            "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint \"users_email_key\"\nDETAIL:  Key (email)=(a@b.c) already exists.",
            "null value in column \"name\" of relation \"users\" violates not-null constraint",
            "invalid input syntax for type integer: \"abc\"",
            "current transaction is aborted, commands ignored until end of transaction block",
            "function lower(integer) does not exist",
        ],
        ignores: &[
            "Rows: 3\nno such table errors were seen in the last hour",
            "The table `users` was created.",
            "Explain: \"relation does not exist\" means the table is missing from the search_path.",
            "id | name\n1 | no such table: users",
        ],
    },
    ContentRule {
        id: "client-library-error",
        pattern: r"\A(?:[45]\d\d, message='[^'\n]*', url=URL\('|(?:[\w.]*(?:ServerDisconnectedError|RemoteProtocolError): )?Server disconnected(?: without sending a response)?\.?[ \t]*(?:\n|\z)|(?:[\w.]*DeadlineExceeded: )?(?:504 )?Deadline Exceeded[ \t]*(?:\n|\z)|You exceeded your current quota, please check your plan and billing details\b|The model `[^`\n]+` does not exist or you do not have access to it\.|Incorrect API key provided: \S)",
        tools: &[],
        dialects: &[],
        precision: Precision::High,
        reads: Reads::Verdicts,
        doc: "A tool that hands back the exception of its HTTP or API client as its whole answer: aiohttp's \
              `ClientResponseError` as versions before 3.9 print it (`404, message='Not Found', \
              url=URL('…')`; later ones print `url='…'`, read by `http-client-raised`), aiohttp's \
              `ServerDisconnectedError` and httpx's `RemoteProtocolError` (`Server disconnected without \
              sending a response.`), gRPC's `DEADLINE_EXCEEDED` (`Deadline Exceeded`, google-api-core's \
              `504 Deadline Exceeded`), and the OpenAI API's error messages a tool passes on without their \
              status (`You exceeded your current quota, …`, `The model `…` does not exist or you do not have \
              access to it.`, `Incorrect API key provided: …`: platform.openai.com, \"Error codes\").",
        fires_on: &[
            "404, message='Not Found', url=URL('https://api.example.com/v1/items')",
            "Server disconnected",
            "Server disconnected without sending a response.",
            "Deadline Exceeded",
            "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
            "The model `gpt-5-preview` does not exist or you do not have access to it.",
            "Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.",
        ],
        ignores: &[
            "200, message='OK', url=URL('https://api.example.com/v1/items')",
            "Server disconnected clients: 0\nServer connected clients: 12",
            "Deadline Exceeded errors in the last day: 0",
            "The model `gpt-4o` is available.",
        ],
    },
];
