//! The drop target plus the file and directory pickers.

use web_sys::{DragEvent, HtmlInputElement};
use yew::prelude::*;

use crate::loader::{self, PickedFile};

#[derive(Properties, PartialEq)]
pub struct DropZoneProps {
    pub on_files: Callback<Vec<PickedFile>>,
    pub on_error: Callback<String>,
    #[prop_or_default]
    pub on_sample: Callback<()>,
    #[prop_or_default]
    pub busy: bool,
    /// Put before every `data-testid` (a page with several drop zones: "node1-"); a zone
    /// with a prefix has no sample button.
    #[prop_or_default]
    pub testid_prefix: AttrValue,
    /// The hint in place of the default one.
    #[prop_or_default]
    pub hint: Option<AttrValue>,
}

#[function_component(DropZone)]
pub fn drop_zone(props: &DropZoneProps) -> Html {
    let hovering = use_state(|| false);

    let on_input = {
        let on_files = props.on_files.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                if let Some(list) = input.files() {
                    on_files.emit(loader::from_file_list(&list));
                }
                // Picking the same files again must fire `change` again.
                input.set_value("");
            }
        })
    };
    let on_drag_over = {
        let hovering = hovering.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            hovering.set(true);
        })
    };
    let on_drag_leave = {
        let hovering = hovering.clone();
        Callback::from(move |_: DragEvent| hovering.set(false))
    };
    let on_drop = {
        let hovering = hovering.clone();
        let on_files = props.on_files.clone();
        let on_error = props.on_error.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            hovering.set(false);
            let Some(transfer) = e.data_transfer() else {
                return;
            };
            let (entries, plain) = loader::drop_entries(&transfer);
            if entries.is_empty() {
                on_files.emit(plain);
                return;
            }
            let on_files = on_files.clone();
            let on_error = on_error.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match loader::walk_entries(entries).await {
                    Ok(files) => on_files.emit(files),
                    Err(e) => on_error.emit(format!("could not read the dropped files: {e}")),
                }
            });
        })
    };

    let class = classes!(
        "drop-zone",
        hovering.then_some("hover"),
        props.busy.then_some("busy")
    );
    let prefix = &props.testid_prefix;
    let id = |name: &str| format!("{prefix}{name}");
    html! {
        <section {class} ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}
                 data-testid={id("drop-zone")} aria-label="Drop SSTable files or directories here">
            <p class="drop-hint">{ props.hint.clone().unwrap_or_else(|| "Drop the files of one or more SSTables, or a whole table directory, here".into()) }</p>
            <div class="pickers">
                <label class="button">
                    { "Choose files…" }
                    <input type="file" multiple=true onchange={on_input.clone()} data-testid={id("file-input")} />
                </label>
                <label class="button">
                    { "Choose a directory…" }
                    <input type="file" webkitdirectory=true multiple=true onchange={on_input} data-testid={id("dir-input")} />
                </label>
                if prefix.is_empty() {
                    <button class="button" data-testid="load-sample" onclick={props.on_sample.reform(|_| ())}>{ "Load the sample" }</button>
                }
            </div>
            if props.busy {
                <p class="busy-note" aria-live="polite">{ "Reading files…" }</p>
            }
        </section>
    }
}
