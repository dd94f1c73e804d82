//! Content rules, in registry order: failures that a tool's own code
//! emits as an ordinary reply, whichever agent or framework calls it (the
//! MCP reference servers and SDKs, scrapers, application tools). Each
//! names its emitter; `src/rules/catalogue.json` holds the shapes with their
//! source references, and its test judges every one.

use super::ContentRule;
use crate::rules::{Precision, Reads};

pub(super) const RULES: &[ContentRule] = &[
    ContentRule {
        id: "mcp-fetch-failed",
        pattern: r"^Contents of \S+:\n<error>Page failed to be simplified from HTML</error>|^(?:<error>)?(?:Failed to fetch (?:robots\.txt )?\S+(?: - status code \d{3}\b|:\s|\s+due to a connection issue)|The sites? robots\.txt \(\S+\),? specifies that autonomous fetching of this page is not allowed|When fetching robots\.txt \(\S+\), received status \d+ so assuming that autonomous fetching is not allowed)",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The MCP fetch server (modelcontextprotocol/servers, src/fetch) answers a page it could not get \
              with `Failed to fetch <url> - status code <n>` or `Failed to fetch <url>: <error>`, and a page its \
              robots.txt forbids with `The sites robots.txt (<url>), specifies that autonomous fetching of this \
              page is not allowed`. A framework that turns the server's error into text (LangGraph through \
              langchain-mcp-adapters, ADK) stores it as a success. The words are the tool's, never the page's: \
              the page is not returned.",
        fires_on: &[
            "Failed to fetch https://example.com/docs/missing - status code 404",
            "<error>Failed to fetch https://a.example/x: ConnectError('[Errno 111] Connection refused')</error>",
            "The sites robots.txt (https://n.example/robots.txt), specifies that autonomous fetching of this page is not allowed, <useragent>x</useragent>",
            "When fetching robots.txt (https://n.example/robots.txt), received status 403 so assuming that autonomous fetching is not allowed, the user can try manually fetching by using the fetch prompt",
            "Contents of https://app.example.com/:\n<error>Page failed to be simplified from HTML</error>",
        ],
        ignores: &[
            "Contents of https://example.com/:\nFailed to fetch is a common browser error.",
            "Failed to fetch data? Try again later. (page text)",
        ],
    },
    ContentRule {
        id: "mcp-sdk-error",
        pattern: r"^(?:Error executing tool \S+: )?Input validation error: \S|^Error executing tool \S+: \S|^Unknown tool: \S",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The MCP SDKs' own answers for a call that failed: `Input validation error: <JSON Schema message>` \
              for arguments the tool's input schema rejects (python-sdk's low-level server, typescript-sdk's \
              McpServer), `Error executing tool <name>: <exception>` when the tool raised (python-sdk's FastMCP), \
              `Unknown tool: <name>`. A client that keeps only the text stores them as successes; they are the \
              SDK's words, so they are read in a reader's result too.",
        fires_on: &[
            "Input validation error: 'three' is not of type 'integer'",
            "Input validation error: 'city' is a required property",
            "Error executing tool read_file: [Errno 2] No such file or directory: '/p/x'",
        ],
        ignores: &["The Input validation error dialog was closed."],
    },
    ContentRule {
        id: "mcp-filesystem-each-failed",
        pattern: r"\A(?:[^\n]+: Error - [^\n]*(?:\n---\n|\s*\z))+\z",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "The MCP filesystem server's `read_multiple_files` answers each path with its text or \
              `<path>: Error - <message>`, the answers joined by `---`. When every answer is an error, \
              nothing was read; when one file was read, the call did its work.",
        fires_on: &[
            "/p/a.txt: Error - ENOENT: no such file or directory, open '/p/a.txt'\n---\n/p/b.txt: Error - ENOENT: no such file or directory, open '/p/b.txt'",
            "/etc/hosts: Error - Access denied - path outside allowed directories: /etc/hosts not in /p",
        ],
        ignores: &["/p/a.txt:\nhello\n---\n/p/b.txt: Error - ENOENT: no such file or directory, open '/p/b.txt'"],
    },
    ContentRule {
        id: "crewai-tool-error",
        pattern: r"^(?:I encountered an error while trying to use the tool\. This was the error: |I encountered an error: |You tried to use the tool \S+, but it doesn't exist\. You must use one of the following tools|Error: the Action Input is not a valid key, value dictionary\.|Error executing tool(?::|\. ))",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "CrewAI's own texts for a tool call that failed, handed to the agent as the tool's output \
              (crewAI's translations/en.json: `tool_usage_exception`, `tool_usage_error`, `wrong_tool_name`, \
              `tool_arguments_error`; the executor's `Error executing tool: …`). They are the framework's \
              words, never a file's or a page's, so they are read in every result.",
        fires_on: &[
            "I encountered an error while trying to use the tool. This was the error: 'NoneType' object has no attribute 'get'.\n Tool search_docs accepts these inputs: x",
            "You tried to use the tool web_search, but it doesn't exist. You must use one of the following tools, use one at time: a, b.",
            "Error: the Action Input is not a valid key, value dictionary.",
            "Error executing tool: [Errno 2] No such file or directory: '/data/x.csv'",
            "\nError executing tool. coworker mentioned not found, it must be one of the following options:\n- researcher",
        ],
        ignores: &[
            "I encountered an errant semicolon in the poem.",
            "Error executing tooling upgrades is a known risk",
        ],
    },
    ContentRule {
        id: "block-page",
        pattern: r"^(?:Attention Required! \| Cloudflare\s+)?Sorry, you have been blocked\b|^Access Denied\s*\n+\s*You don't have permission to access\b|^(?:Just a moment\.\.\.|Attention Required! \| Cloudflare)\s*\n(?:[^\n]*\n){0,6}?[^\n]*(?:Enable JavaScript and cookies to continue|Checking (?:if the site connection is secure|your browser)|you have been blocked)",
        tools: &[],
        formats: &[],
        precision: Precision::High,
        reads: Reads::Any,
        doc: "A scraper or fetch tool that got the block page of a bot-protection service instead of the page: \
              Cloudflare's `Sorry, you have been blocked` and `Just a moment...` challenge, Akamai's `Access \
              Denied` / `You don't have permission to access`. The request did not get its answer (LABELS.md).",
        fires_on: &[
            "Attention Required! | Cloudflare\nSorry, you have been blocked\nYou are unable to access shop.example.com",
            "Access Denied\nYou don't have permission to access \"http://www.example.com/p\" on this server.",
            "Just a moment...\nEnable JavaScript and cookies to continue",
        ],
        ignores: &[
            "How to fix 'Sorry, you have been blocked' on Cloudflare sites\nIf you see the message...",
            "Access Denied errors explained",
        ],
    },
];
