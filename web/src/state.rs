//! The app's single state and the actions that change it (`use_reducer`, as in Yew's todomvc).

use std::rc::Rc;

use sstable_engine::component::ComponentType;
use sstable_engine::info::InfoReport;
use sstable_engine::sstable_set::IgnoredFile;
use sstable_engine::toc::ComponentCheck;
use yew::Reducible;

/// One dropped or picked file: the browser handle stays in the loader; views see this.
#[derive(Debug, Clone, PartialEq)]
pub struct FileInfo {
    pub path: String,
    pub size_bytes: u64,
}

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
    pub check: ComponentCheck,
    /// Problems reading this SSTable's files, in words.
    pub errors: Vec<String>,
    /// Every metadata component decoded (the same report as `sstable-inspect info --json`).
    pub info: Option<InfoReport>,
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    pub loading: bool,
    pub sstables: Vec<SSTableView>,
    pub ignored: Vec<IgnoredFile>,
    /// Wall time of the last load (grouping and TOC reads), from `performance.now()`.
    pub load_millis: Option<f64>,
    pub error: Option<String>,
}

pub enum Action {
    LoadStarted,
    Loaded {
        sstables: Vec<SSTableView>,
        ignored: Vec<IgnoredFile>,
        millis: f64,
    },
    Failed(String),
    Clear,
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::LoadStarted => {
                next.loading = true;
                next.error = None;
            }
            Action::Loaded {
                sstables,
                ignored,
                millis,
            } => {
                next.loading = false;
                next.sstables = sstables;
                next.ignored = ignored;
                next.load_millis = Some(millis);
            }
            Action::Failed(message) => {
                next.loading = false;
                next.error = Some(message);
            }
            Action::Clear => next = State::default(),
        }
        Rc::new(next)
    }
}
