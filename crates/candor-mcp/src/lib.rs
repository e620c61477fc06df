//! MCP tool results from candor's [`Bounded<T>`](candor::Bounded), the
//! paging arguments of a tool, and a guard for a stdio server, on the
//! official MCP SDK `rmcp`.
//!
//! A tool result carries the wire shape in `structuredContent` and two
//! text blocks: first the one-line disclosure (some clients read only the
//! text), then exactly the JSON of `structuredContent` (the MCP mirror for
//! older clients). A candor error is a tool error (`isError: true`) whose
//! text names what was wrong. The tool's `outputSchema` is
//! [`envelope_schema`](candor::envelope_schema) of its item's schema
//! ([`output_schema::<T>()`](output_schema), from `T: JsonSchema`).
//!
//! # A paged tool, one way
//!
//! Take the arguments as [`Parameters<T>`] (in place of rmcp's
//! `Parameters`: an argument the schema does not name is an error, never
//! ignored), flatten [`PageArgs`] into `T`, run the query with
//! [`PageArgs::limits`], and answer with [`respond`], which takes the
//! `PageArgs` it answers, so that their `max_bytes` and `strict` cannot be
//! dropped. The query resumes from the call's cursor
//! ([`PageArgs::cursor`]): `respond` refuses a page that does not start
//! where that cursor does, which would restart the client's walk without a
//! word. Run a blocking query on [`Workers`], so that what calls in
//! flight hold stays flat.
//!
//! ```
//! use candor::{Bounded, Fingerprint, Scope};
//! use candor_mcp::{PageArgs, Parameters, Policy, respond};
//! use rmcp::model::CallToolResult;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Callers {
//!     /// The function whose callers to list.
//!     function: String,
//!     #[serde(flatten)]
//!     page: PageArgs,
//! }
//!
//! struct Server {
//!     policy: Policy,
//! }
//!
//! #[rmcp::tool_router(server_handler)]
//! impl Server {
//!     /// List the callers of a function.
//!     #[rmcp::tool(output_schema = candor_mcp::output_schema::<String>())]
//!     fn callers(&self, Parameters(args): Parameters<Callers>) -> CallToolResult {
//!         let callers = (0..5000).map(|n| format!("caller_{n} of {}", args.function));
//!         // A cursor resumes this query only: one of another is refused.
//!         let scope = Scope::new(Fingerprint::of(&args.function));
//!         let limits = args.page.limits(&self.policy);
//!         let result = args
//!             .page
//!             .cursor()
//!             .and_then(|cursor| Bounded::page(callers, &limits, &scope, cursor.as_ref()));
//!         respond(result, "callers", &args.page, &self.policy)
//!     }
//! }
//!
//! let server = Server { policy: Policy::new() };
//! let args = serde_json::json!({ "function": "flush", "limit": 3, "strict": true });
//! let Parameters(args) = Parameters::<Callers>::from_arguments(args.as_object().unwrap().clone())?;
//! let answer = server.callers(Parameters(args));
//! assert_eq!(answer.is_error, Some(true)); // strict, and 4,997 callers were left out
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The byte budget
//!
//! A client's `max_bytes` bounds the whole tool result as sent: every
//! content block and `structuredContent`. As the JSON is sent twice
//! (once escaped, up to twice as long) beside a disclosure line, the
//! query runs with `(max_bytes - 672) / 3` bytes of JSON ([`json_budget`]:
//! 776 of 3000); [`PageArgs::limits`] sets that, through
//! [`enclosing`], so that every figure the result states (`max`, `used`,
//! `needed`, in `structuredContent`, the disclosure line and errors)
//! counts bytes of the whole tool result, as `max_bytes` does: `used` is
//! the least `max_bytes` that holds the page, and asking again with a
//! page's `needed` gives a page that holds the next item.
//! [`PageArgs::budget`] is the whole budget, and [`respond`] answers
//! within it (a result that would not fit is never sent).
//!
//! `limit`, `max_bytes` and `count_total` may change from one page to
//! the next: a cursor resumes the query wherever the page before ended,
//! whatever the page sizes.
//!
//! ```
//! use candor_mcp::{PageArgs, Policy, respond};
//! let policy = Policy::new();
//! let schema = PageArgs::input_schema(Default::default(), &[], &policy);
//! let arguments = serde_json::json!({ "max_bytes": 2048 });
//! let page = PageArgs::from_arguments(arguments.as_object().unwrap(), &schema)?;
//! let words = (0..1000).map(|n| format!("word {n}"));
//! let result = respond(candor::Bounded::collect(words, &page.limits(&policy)), "words", &page, &policy);
//! assert_eq!(result.is_error, Some(false));
//! assert!(serde_json::to_vec(&result)?.len() <= 2048);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Cancellation that keeps the page
//!
//! A query holding a [`CancelToken`](candor::CancelToken) answers, once
//! cancelled, with what it has found, marked
//! [`BudgetKind::Cancelled`](candor::BudgetKind::Cancelled), and a cursor.
//! A guard from [`cancel_on_drop`](candor::CancelToken::cancel_on_drop)
//! ends the query when the future awaiting it is dropped (the client
//! cancelled the request): nobody is left to read the page. To stop at a
//! time of your own and still answer with the page, cancel the token and
//! await the query's handle:
//!
//! ```
//! use std::time::Duration;
//! use candor::{BudgetKind, CancelToken, Limits};
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let token = CancelToken::new();
//! let limits = Limits::new().cancel_token(token.clone());
//! // A slow source, that never ends on its own.
//! let rows = (0u64..).inspect(|_| std::thread::sleep(Duration::from_millis(1)));
//! let mut query = tokio::task::spawn_blocking(move || candor::Bounded::collect(rows, &limits));
//! let page = tokio::select! {
//!     done = &mut query => done??,
//!     () = tokio::time::sleep(Duration::from_millis(20)) => {
//!         token.cancel();
//!         query.await?? // the page found so far, not lost
//!     }
//! };
//! assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Cancelled));
//! assert!(page.summary("rows").contains("(cancelled)"));
//! let result = candor_mcp::tool_result(&page, "rows", 64 * 1024);
//! assert_eq!(result.is_error, Some(false));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Serving on stdio
//!
//! [`StdioGuard`] reads a stdio server's input in front of rmcp, so that
//! every request line gets an answer: a line too long to read, a line
//! that is not JSON, a call whose arguments are not an object.
//!
//! # Key order in `structuredContent`
//!
//! `structuredContent` is a `serde_json::Value`. Its keys keep the wire
//! order (disclosure first, `items` last) only when serde_json's
//! `preserve_order` feature is on in the build; without it they are
//! sorted. The second text block is the exact wire JSON either way. This
//! module does not turn `preserve_order` on for you, as it would change
//! every `serde_json::Map` in your program.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod argument_checks;
mod budget;
mod page_args;
mod parameters;
mod policy;
mod result;
mod stdio;
mod tool;
mod workers;

pub use argument_checks::invalid_argument;
pub use budget::{enclosing, json_budget};
pub use page_args::PageArgs;
pub use parameters::Parameters;
pub use policy::Policy;
pub use result::{error_result, respond, respond_try, tool_result};
pub use stdio::{GuardOutput, StdioGuard};
pub use tool::{bounded_tool, output_schema};
pub use workers::{WorkError, Workers};
