//! The CLI's budgets, in one place: how much memory reading headers may take
//! (`--max-header-bytes`), how long a command and each of its requests may run (`--timeout`), and
//! the memory cap of the chat template renders. The page has the same bounds by other means: its
//! parser's wasm memory is capped at 512 MiB and its watchdog ends a stuck worker.
//!
//! The header budget is checked in the read loop (`source::read_header`), the one place every
//! header is fed to the decoder: before a read, whether the heap could take the read's buffer and
//! the decoder's copies of it; after each feed, whether the heap's high-water mark (counted by
//! [`heap`], a growing array's old and new blocks together) stayed within it. A feed is at most
//! the read rule's 16 MiB or the one item that needs more, so the heap never goes far past the
//! budget before the read loop stops. The headers already read count: the budget is for all of a
//! command's headers together.

pub mod heap;

use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Default `--max-header-bytes`: 1 GiB, twice the page's cap, twenty times the heaviest real
/// header (the 262k-token vocabulary, 51 MiB decoded).
pub const DEFAULT_MAX_HEADER_BYTES: u64 = 1 << 30;

/// Default `--timeout`, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;

/// The memory cap of the chat template renders of one command (their threads' heap, together),
/// the same as the page's preview module (`max-memory` of the `template` module in wasm-pack.toml).
pub const TEMPLATE_MEMORY_CAP: u64 = 256 << 20;

/// A read loop's allocations per byte read, at most, before the heap is looked at again: the
/// read buffer, the decoder's carried partial item and the item's decoded copy.
const COPIES_PER_READ: u64 = 3;

/// The global flags that bound a command.
#[derive(clap::Args, Debug, Clone)]
pub struct BudgetArgs {
    /// Stop reading headers when they would take more than BYTES of memory (the decoded headers,
    /// the read buffer, the decoder's partial item). Default 1 GiB.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = DEFAULT_MAX_HEADER_BYTES)]
    pub max_header_bytes: u64,
    /// Stop the command, and any request to a server, after SECONDS (0: no deadline). `edit`
    /// removes its temporary file first.
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT_SECS)]
    pub timeout: u64,
}

/// The bounds of this run, with the time it started.
struct Budgets {
    max_header_bytes: u64,
    timeout: Option<Duration>,
    started: Instant,
}

static BUDGETS: OnceLock<Budgets> = OnceLock::new();

fn budgets() -> &'static Budgets {
    BUDGETS.get_or_init(|| Budgets {
        max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
        timeout: Some(Duration::from_secs(DEFAULT_TIMEOUT_SECS)),
        started: Instant::now(),
    })
}

/// Sets this run's bounds and starts the command's deadline: when it passes, `on_deadline` is
/// called on a thread of its own with the message to give (it ends the process).
pub fn start(args: &BudgetArgs, on_deadline: fn(&str) -> !) {
    let timeout = (args.timeout > 0).then(|| Duration::from_secs(args.timeout));
    let _ = BUDGETS.set(Budgets {
        max_header_bytes: args.max_header_bytes,
        timeout,
        started: Instant::now(),
    });
    if let Some(timeout) = timeout {
        // A request's own deadline is the same instant: the watchdog comes a moment later, for
        // what is not a request (a slow disk), so that a request's failure names its URL.
        let grace = Duration::from_millis(500);
        std::thread::spawn(move || {
            std::thread::sleep(timeout + grace);
            on_deadline(&format!(
                "stopped: the command ran for more than {} s (--timeout {})",
                timeout.as_secs(),
                timeout.as_secs()
            ));
        });
    }
}

/// The time left to the command's deadline, for a request's own: `None` without a deadline.
pub fn time_left() -> Option<Duration> {
    let b = budgets();
    b.timeout.map(|t| {
        t.saturating_sub(b.started.elapsed())
            .max(Duration::from_millis(1))
    })
}

/// The `--timeout` in seconds, for messages.
pub fn timeout_secs() -> u64 {
    budgets().timeout.map_or(0, |t| t.as_secs())
}

/// Reading headers went over the header budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The file offset the header was read to.
    pub offset: u64,
    /// The heap in use, plus what the read would add.
    pub needed: u64,
    /// The budget.
    pub budget: u64,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stopped at byte {}: reading the header needs {} bytes of memory, more than the header budget of {} bytes (--max-header-bytes)",
            self.offset, self.needed, self.budget
        )
    }
}

/// How many bytes a value read whole for a header (`edit --set-file`) may have, within what is
/// left of the header budget: the value is kept, put in the new header and encoded there, so
/// each byte counts [`COPIES_PER_READ`] times.
pub fn room_for_value() -> u64 {
    budgets().max_header_bytes.saturating_sub(heap::in_use()) / COPIES_PER_READ
}

/// The `--max-header-bytes` in force, for messages.
pub fn max_header_bytes() -> u64 {
    budgets().max_header_bytes
}

/// Whether a read of `len` bytes at `offset`, and the decoder's copies of them, fit the budget.
/// The heap's high-water mark starts again here, for [`check_fed`].
pub fn check_read(offset: u64, len: u64) -> Result<(), OverBudget> {
    heap::reset_peak();
    check_heap(
        offset,
        heap::in_use().saturating_add(len.saturating_mul(COPIES_PER_READ)),
    )
}

/// Whether the heap, at its highest while the last read was fed (the header fed up to
/// `offset`), stayed within the budget.
pub fn check_fed(offset: u64) -> Result<(), OverBudget> {
    check_heap(offset, heap::peak())
}

fn check_heap(offset: u64, needed: u64) -> Result<(), OverBudget> {
    let budget = budgets().max_header_bytes;
    if needed > budget {
        return Err(OverBudget {
            offset,
            needed,
            budget,
        });
    }
    Ok(())
}
