//! The app's single state and the actions that change it (`use_reducer`, as in Yew's todomvc).

use std::cell::Cell;
use std::rc::Rc;

use sstable_engine::component::ComponentType;
use sstable_engine::span::{Node, Span};
use sstable_engine::sstable_set::IgnoredFile;
use yew::Reducible;

pub use crate::protocol::summary::SSTableSummary;
pub use crate::protocol::verify_run::{PhaseRun, Verdict, VerifyRun, WorkerTiming};
use crate::protocol::FileRef;

/// One SSTable as shown in the list.
#[derive(Debug, Clone, PartialEq)]
pub struct SSTableView {
    pub prefix: String,
    pub version: String,
    pub release: String,
    pub format: String,
    pub generation: String,
    /// (component, size in bytes), sorted by component.
    pub components: Vec<(ComponentType, u64)>,
    /// Problems reading this SSTable's files, in words.
    pub errors: Vec<String>,
    /// Its metadata as a worker decoded it (`Request::Load`): facts, field trees, the numbers
    /// the views draw.
    pub summary: Shared<SSTableSummary>,
    /// The browser file handles, by component (read by `Blob.slice` ranges).
    pub files: Vec<(ComponentType, web_sys::File)>,
}

impl SSTableView {
    pub fn file(&self, component: &ComponentType) -> Option<&web_sys::File> {
        self.files
            .iter()
            .find(|(c, _)| c == component)
            .map(|(_, f)| f)
    }

    /// Every file of the SSTable, as a request carries them.
    pub fn file_refs(&self) -> Vec<FileRef> {
        self.files
            .iter()
            .map(|(_, f)| FileRef {
                path: f.name(),
                file: f.clone(),
            })
            .collect()
    }

    pub fn node(&self, component: &ComponentType) -> Option<&Node> {
        self.summary.node(component)
    }
}

/// Shared, immutable data compared by identity (cheap props for large trees).
#[derive(Debug, Default)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Rc::clone(&self.0))
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The detail tabs of the selected SSTable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
    Overview,
    Components,
    Data,
    Index,
    Bloom,
    Verify,
    Analytics,
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    pub loading: bool,
    /// Shared: a state change copies a pointer, not every SSTable.
    pub sstables: Shared<Vec<SSTableView>>,
    pub ignored: Vec<IgnoredFile>,
    /// The schema.cql files dropped with the SSTables (a context of the page's views).
    pub schema_files: SchemaFiles,
    /// Wall time of the last load (grouping and TOC reads), from `performance.now()`.
    pub load_millis: Option<f64>,
    /// How many loads have completed (the page shows it, so tests can wait for a new one).
    pub load_count: u32,
    pub error: Option<String>,
    /// Index into `sstables` of the SSTable shown in detail.
    pub selected: Option<usize>,
    pub tab: Tab,
    /// The component shown in the component view, and the byte range highlighted in it.
    pub component: Option<ComponentType>,
    pub highlight: Option<Span>,
    /// The tag of the newest load started: an older load that finishes later is dropped.
    pub load_tag: u64,
    /// The last verification of each SSTable, by prefix.
    pub verified: Vec<(String, Rc<VerifyRun>)>,
    /// Verifications running, by prefix (they stay with their SSTable whatever is shown).
    pub verifying: Vec<(String, VerifyProgress)>,
    /// "Verify all": the queue over every SSTable loaded.
    pub verify_all: Option<VerifyAll>,
}

/// The `schema.cql` files dropped with the SSTables, as (directory, text): a table's
/// `CREATE TABLE` for its 2.x SSTables, which record no schema — found beside them, as the CLI
/// finds one (`sstable-inspect read DIR`). The table-wide views read it as a Yew context.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemaFiles(pub Rc<Vec<(String, String)>>);

impl SchemaFiles {
    /// The text of the schema.cql in the directory of the SSTable `prefix`.
    pub fn beside(&self, prefix: &str) -> Option<&str> {
        let dir = prefix.rsplit_once('/').map_or("", |(d, _)| d);
        self.0
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, text)| text.as_str())
    }
}

thread_local! {
    static LAST_TAG: Cell<u64> = const { Cell::new(0) };
}

/// A fresh tag for a load or a job (increasing).
pub fn next_tag() -> u64 {
    LAST_TAG.with(|t| {
        let next = t.get().wrapping_add(1);
        t.set(next);
        next
    })
}

/// How far one running verification is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VerifyProgress {
    /// The pool's job id (for cancelling).
    pub job: u64,
    pub done_bytes: u64,
    pub total_bytes: u64,
}

/// The "Verify all" queue.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VerifyAll {
    /// The SSTables queued, by prefix, and their job ids.
    pub jobs: Vec<(String, u64)>,
    pub finished: usize,
    pub started_millis: f64,
    pub finished_millis: Option<f64>,
    pub cancelled: bool,
}

pub enum Action {
    /// A load with this tag started (newer than any before).
    LoadStarted(u64),
    Loaded {
        tag: u64,
        sstables: Vec<SSTableView>,
        ignored: Vec<IgnoredFile>,
        schema_files: SchemaFiles,
        millis: f64,
    },
    Failed(String),
    Clear,
    Select(usize),
    ShowTab(Tab),
    ShowComponent(ComponentType),
    Highlight(Option<Span>),
    /// A verification of `prefix` (of load `tag`) went to the pool as `job`.
    VerifyStarted {
        tag: u64,
        prefix: String,
        job: u64,
    },
    VerifyProgress {
        tag: u64,
        prefix: String,
        progress: VerifyProgress,
    },
    /// A verification ended (with a run, or a message when the worker failed).
    Verified {
        tag: u64,
        prefix: String,
        run: Rc<VerifyRun>,
        /// `performance.now()` when it arrived.
        at_millis: f64,
    },
    VerifyAllStarted {
        tag: u64,
        jobs: Vec<(String, u64)>,
        started_millis: f64,
    },
    VerifyAllCancelled,
    /// Several actions in one state change (one render): worker replies are batched.
    Batch(Vec<Action>),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::LoadStarted(tag) => {
                next.loading = true;
                next.error = None;
                next.load_tag = tag;
            }
            Action::Loaded {
                tag,
                sstables,
                ignored,
                schema_files,
                millis,
            } => {
                next.schema_files = schema_files;
                if tag != self.load_tag {
                    // An older load finished after a newer one started: drop it.
                    return self;
                }
                next.loading = false;
                next.verifying.clear();
                next.verify_all = None;
                next.selected = (!sstables.is_empty()).then_some(0);
                next.component = None;
                next.highlight = None;
                next.verified.clear();
                next.sstables = Shared(Rc::new(sstables));
                next.ignored = ignored;
                next.load_millis = Some(millis);
                next.load_count += 1;
            }
            Action::Failed(message) => {
                next.loading = false;
                next.error = Some(message);
            }
            Action::Clear => next = State::default(),
            Action::Select(i) => {
                if i < next.sstables.len() && next.selected != Some(i) {
                    next.selected = Some(i);
                    next.component = None;
                    next.highlight = None;
                }
            }
            Action::ShowTab(tab) => next.tab = tab,
            Action::ShowComponent(c) => {
                next.tab = Tab::Components;
                next.component = Some(c);
                next.highlight = None;
            }
            Action::Highlight(span) => next.highlight = span,
            Action::VerifyStarted { tag, prefix, job } => {
                if tag != self.load_tag {
                    return self;
                }
                next.verifying.retain(|(p, _)| *p != prefix);
                next.verifying.push((
                    prefix,
                    VerifyProgress {
                        job,
                        ..VerifyProgress::default()
                    },
                ));
            }
            Action::VerifyProgress {
                tag,
                prefix,
                progress,
            } => {
                if tag != self.load_tag {
                    return self;
                }
                match next
                    .verifying
                    .iter_mut()
                    .find(|(p, v)| *p == prefix && v.job == progress.job)
                {
                    Some((_, v)) => *v = progress,
                    None => return self,
                }
            }
            Action::Verified {
                tag,
                prefix,
                run,
                at_millis,
            } => {
                if tag != self.load_tag {
                    return self;
                }
                next.verifying.retain(|(p, _)| *p != prefix);
                next.verified.retain(|(p, _)| *p != prefix);
                next.verified.push((prefix.clone(), run));
                if let Some(all) = next.verify_all.as_mut() {
                    if all.jobs.iter().any(|(p, _)| *p == prefix) && all.finished < all.jobs.len() {
                        all.finished += 1;
                        if all.finished == all.jobs.len() {
                            all.finished_millis = Some(at_millis);
                        }
                    }
                }
            }
            Action::VerifyAllStarted {
                tag,
                jobs,
                started_millis,
            } => {
                if tag != self.load_tag {
                    return self;
                }
                next.verify_all = Some(VerifyAll {
                    jobs,
                    finished: 0,
                    started_millis,
                    finished_millis: None,
                    cancelled: false,
                });
            }
            Action::Batch(actions) => {
                return actions
                    .into_iter()
                    .fold(self, |state, action| state.reduce(action));
            }
            Action::VerifyAllCancelled => {
                if let Some(all) = next.verify_all.as_mut() {
                    all.cancelled = true;
                }
            }
        }
        Rc::new(next)
    }
}
