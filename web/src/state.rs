//! The app's single state and the actions that change it (`use_reducer`, as in Yew's todomvc).

use std::rc::Rc;

use sstable_engine::component::ComponentType;
use sstable_engine::info::{InfoReport, SSTableMetadata};
use sstable_engine::span::{Node, Span};
use sstable_engine::sstable_set::IgnoredFile;
use sstable_engine::toc::ComponentCheck;
use yew::Reducible;

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
    /// Every metadata component, decoded (for the bloom lab and lookups).
    pub metadata: Shared<SSTableMetadata>,
    /// Decoded field trees, one per decoded component.
    pub nodes: Shared<Vec<(ComponentType, Node)>>,
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

    pub fn node(&self, component: &ComponentType) -> Option<&Node> {
        self.nodes
            .0
            .iter()
            .find(|(c, _)| c == component)
            .map(|(_, n)| n)
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
    pub sstables: Vec<SSTableView>,
    pub ignored: Vec<IgnoredFile>,
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
    /// The last verification of each SSTable, by prefix.
    pub verified: Vec<(String, Rc<crate::components::verify_view::VerifyRun>)>,
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
    Select(usize),
    ShowTab(Tab),
    ShowComponent(ComponentType),
    Highlight(Option<Span>),
    Verified(String, Rc<crate::components::verify_view::VerifyRun>),
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
                next.selected = (!sstables.is_empty()).then_some(0);
                next.component = None;
                next.highlight = None;
                next.verified.clear();
                next.sstables = sstables;
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
            Action::Verified(prefix, run) => {
                next.verified.retain(|(p, _)| *p != prefix);
                next.verified.push((prefix, run));
            }
        }
        Rc::new(next)
    }
}
