//! The page: header, drop zone, then the SSTables found (cards and a sortable table) and the
//! component view of the selected one.

use sstable_engine::component::ComponentType;
use sstable_engine::span::Span;
use yew::prelude::*;

use super::analytics_view::AnalyticsView;
use super::bloom_lab::BloomLab;
use super::component_view::ComponentView;
use super::data_browser::DataBrowser;
use super::drop_zone::DropZone;
use super::index_view::IndexView;
use super::overview_table::OverviewTable;
use super::replicas_view::ReplicasView;
use super::salvage::SalvageView;
use super::sstable_card::SSTableCard;
use super::verify_all::VerifyAllPanel;
use super::verify_view::VerifyView;
use crate::loader::{self, PickedFile};
use crate::state::{next_tag, Action, SchemaFiles, State, Tab};
use crate::verification;

/// What a load reads: files picked or dropped, or the embedded sample.
enum Load {
    Files(Vec<PickedFile>),
    Sample,
}

/// Cards rendered per step (one task of the UI thread each).
const CARDS_PER_STEP: usize = 8;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);

    let on_load = {
        let state = state.clone();
        Callback::from(move |what: Load| {
            let state = state.clone();
            let tag = next_tag();
            state.dispatch(Action::LoadStarted(tag));
            wasm_bindgen_futures::spawn_local(async move {
                let started = loader::now_millis();
                let (sstables, ignored, schema_files) = match what {
                    Load::Files(files) => {
                        let (sstables, ignored) = crate::loading::load(&files).await;
                        (
                            sstables,
                            ignored,
                            crate::loading::schema_files(&files).await,
                        )
                    }
                    Load::Sample => {
                        let (sstables, ignored) = crate::loading::load_sample().await;
                        (sstables, ignored, SchemaFiles::default())
                    }
                };
                let millis = loader::now_millis() - started;
                // The render of a loaded tree in a task of its own, not in the one that read
                // the last worker reply.
                loader::yield_to_event_loop().await;
                state.dispatch(Action::Loaded {
                    tag,
                    sstables,
                    ignored,
                    schema_files,
                    millis,
                });
            });
        })
    };
    let on_files = on_load.reform(Load::Files);
    // The embedded sample, decoded on first load (by a worker, which has it: issue #12).
    {
        let on_load = on_load.clone();
        use_effect_with((), move |_| on_load.emit(Load::Sample));
    }
    let on_sample = on_load.reform(|_| Load::Sample);
    let on_error = {
        let state = state.clone();
        Callback::from(move |message: String| state.dispatch(Action::Failed(message)))
    };
    // The same callback on every render, so the overview table re-renders only when its
    // SSTables, selection or rows shown change (not on every verification progress batch).
    let on_select = {
        let dispatcher = state.dispatcher();
        use_callback((), move |i: usize, _| {
            dispatcher.dispatch(Action::Select(i))
        })
    };
    // One callback for every card, the same on every render (cards re-render only when their
    // own props change).
    let on_inspect = {
        let dispatcher = state.dispatcher();
        use_callback((), move |i: usize, _| {
            dispatcher.dispatch(Action::Select(i));
            dispatcher.dispatch(Action::ShowTab(Tab::Components));
        })
    };
    let on_component = {
        let state = state.clone();
        Callback::from(move |c: ComponentType| state.dispatch(Action::ShowComponent(c)))
    };
    let on_highlight = {
        let state = state.clone();
        Callback::from(move |s: Option<Span>| state.dispatch(Action::Highlight(s)))
    };
    let tab_button = |tab: Tab, label: &str| {
        let state = state.clone();
        let active = state.tab == tab;
        html! {
            <button class={classes!("tab", active.then_some("active"))} role="tab" aria-selected={active.to_string()}
                    data-testid={format!("tab-{}", label.to_lowercase())}
                    onclick={Callback::from(move |_| state.dispatch(Action::ShowTab(tab)))}>
                { label.to_owned() }
            </button>
        }
    };
    let selected = state.selected.and_then(|i| state.sstables.get(i).cloned());
    // Cards are rendered a step at a time, so no single task of the UI thread renders hundreds.
    let shown = use_state(|| CARDS_PER_STEP);
    {
        let shown = shown.clone();
        use_effect_with(state.load_count, move |_| shown.set(CARDS_PER_STEP));
    }
    {
        let shown = shown.clone();
        use_effect_with((*shown, state.sstables.len()), move |&(n, total)| {
            if n < total {
                let more = wasm_bindgen::closure::Closure::once_into_js(move || {
                    shown.set(n + CARDS_PER_STEP)
                });
                if let Some(w) = web_sys::window() {
                    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                        wasm_bindgen::JsCast::unchecked_ref(&more),
                        0,
                    );
                }
            }
        });
    }
    let cards_complete = *shown >= state.sstables.len();

    // The dropped schema.cql files: what the table-wide views read a 2.x table with.
    html! {
        <ContextProvider<SchemaFiles> context={state.schema_files.clone()}>
            <header class="top">
                <h1>{ "SSTable Inspector" }</h1>
                <p class="tagline">
                    { "Look inside Apache Cassandra and ScyllaDB SSTable files. " }
                    <strong>{ "Your files never leave this computer:" }</strong>
                    { " everything is decoded here, in your browser." }
                </p>
            </header>
            <DropZone {on_files} {on_error} {on_sample} busy={state.loading} />
            if let Some(error) = &state.error {
                <p class="error" role="alert">{ error }</p>
            }
            if let Some(ms) = state.load_millis {
                <p class="timing" data-testid="summary"
                   data-sstables={state.sstables.iter().map(|s| s.prefix.clone()).collect::<Vec<_>>().join(",")}
                   data-loads={state.load_count.to_string()}>
                    { format!("{} SSTable{} found and their metadata decoded in {:.1} ms", state.sstables.len(), if state.sstables.len() == 1 { "" } else { "s" }, ms) }
                </p>
            }
            if !state.sstables.is_empty() {
                <nav class="tabs main-tabs" role="tablist">
                    { tab_button(Tab::Overview, "SSTables") }
                    { tab_button(Tab::Components, "Components") }
                    { tab_button(Tab::Data, "Data") }
                    { tab_button(Tab::Index, "Index") }
                    { tab_button(Tab::Bloom, "Bloom") }
                    { tab_button(Tab::Verify, "Verify") }
                    { tab_button(Tab::Analytics, "Analytics") }
                </nav>
            }
            if state.tab == Tab::Overview {
                if !state.sstables.is_empty() {
                    <VerifyAllPanel state={state.clone()} />
                }
                if state.sstables.len() > 1 {
                    <OverviewTable sstables={state.sstables.clone()} selected={state.selected} on_select={on_select.clone()} />
                }
                <section class="sstables" data-testid="cards" data-complete={cards_complete.to_string()}>
                    { for state.sstables.iter().take(*shown).enumerate().map(|(i, s)| {
                        let verified = state.verified.iter().find(|(p, _)| *p == s.prefix).map(|(_, r)| r.verdict.clone());
                        let verifying = state.verifying.iter().any(|(p, _)| *p == s.prefix);
                        html! { <SSTableCard key={s.prefix.clone()} sstable={s.clone()} index={i} {verified} {verifying} on_inspect={on_inspect.clone()} /> }
                    }) }
                </section>
            } else if let Some(sstable) = selected {
                <h2 class="detail-title"><code>{ &sstable.prefix }</code></h2>
                if state.tab == Tab::Components {
                    <ComponentView {sstable} component={state.component.clone()} highlight={state.highlight}
                                   {on_component} {on_highlight} />
                } else if state.tab == Tab::Data {
                    <DataBrowser key={sstable.prefix.clone()} sstable={sstable.clone()} all={Some(state.sstables.clone())} />
                } else if state.tab == Tab::Index {
                    <IndexView key={sstable.prefix.clone()} sstable={sstable.clone()} />
                } else if state.tab == Tab::Analytics {
                    <AnalyticsView key={sstable.prefix.clone()} sstable={sstable.clone()} all={state.sstables.clone()} />
                } else if state.tab == Tab::Verify {
                    <VerifyView sstable={sstable.clone()}
                        report={state.verified.iter().find(|(p, _)| *p == sstable.prefix).map(|(_, r)| r.clone())}
                        progress={state.verifying.iter().find(|(p, _)| *p == sstable.prefix).map(|(_, v)| *v)}
                        on_start={{
                            let state = state.clone();
                            let view = sstable.clone();
                            Callback::from(move |(decompress, baseline): (bool, bool)| {
                                verification::start(&state, &view, decompress, baseline);
                            })
                        }}
                        on_cancel={Callback::from(crate::pool::cancel)} />
                    <SalvageView key={sstable.prefix.clone()} sstable={sstable.clone()}
                        verdict={state.verified.iter().find(|(p, _)| *p == sstable.prefix).map(|(_, r)| r.verdict.clone())} />
                } else {
                    <BloomLab {sstable} />
                }
            }
            if !state.ignored.is_empty() {
                <section class="ignored" data-testid="ignored">
                    <h2>{ "Ignored files" }</h2>
                    <ul>
                        { for state.ignored.iter().map(|i| html! {
                            <li><code>{ &i.path }</code>{ ": " }{ &i.reason }</li>
                        }) }
                    </ul>
                </section>
            }
            <ReplicasView />
        </ContextProvider<SchemaFiles>>
    }
}
