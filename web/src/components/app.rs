//! The page: header, drop zone, then one card per SSTable and the ignored files.

use yew::prelude::*;

use super::drop_zone::DropZone;
use super::sstable_card::SSTableCard;
use crate::loader::{self, PickedFile};
use crate::state::{Action, State};

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);

    let on_files = {
        let state = state.clone();
        Callback::from(move |files: Vec<PickedFile>| {
            let state = state.clone();
            state.dispatch(Action::LoadStarted);
            wasm_bindgen_futures::spawn_local(async move {
                let started = loader::now_millis();
                let (sstables, ignored) = loader::load(&files).await;
                let millis = loader::now_millis() - started;
                state.dispatch(Action::Loaded {
                    sstables,
                    ignored,
                    millis,
                });
            });
        })
    };
    let on_error = {
        let state = state.clone();
        Callback::from(move |message: String| state.dispatch(Action::Failed(message)))
    };

    html! {
        <>
            <header class="top">
                <h1>{ "SSTable Inspector" }</h1>
                <p class="tagline">
                    { "Look inside Apache Cassandra and ScyllaDB SSTable files. " }
                    <strong>{ "Your files never leave this computer:" }</strong>
                    { " everything is decoded here, in your browser." }
                </p>
            </header>
            <DropZone {on_files} {on_error} busy={state.loading} />
            if let Some(error) = &state.error {
                <p class="error" role="alert">{ error }</p>
            }
            if let Some(ms) = state.load_millis {
                <p class="timing" data-testid="summary">
                    { format!("{} SSTable{} found in {:.1} ms", state.sstables.len(), if state.sstables.len() == 1 { "" } else { "s" }, ms) }
                </p>
            }
            <section class="sstables">
                { for state.sstables.iter().map(|s| html! { <SSTableCard key={s.prefix.clone()} sstable={s.clone()} /> }) }
            </section>
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
        </>
    }
}
