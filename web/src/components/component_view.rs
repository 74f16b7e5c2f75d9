//! One component of the selected SSTable: its decoded fields beside its bytes.

use sstable_engine::component::ComponentType;
use sstable_engine::span::{Node, Span};
use yew::prelude::*;

use super::field_tree::{path_to_offset, FieldTree};
use super::hex_view::HexView;
use crate::state::SSTableView;

#[derive(Properties, PartialEq)]
pub struct ComponentViewProps {
    pub sstable: SSTableView,
    pub component: Option<ComponentType>,
    pub highlight: Option<Span>,
    pub on_component: Callback<ComponentType>,
    pub on_highlight: Callback<Option<Span>>,
}

/// The innermost field containing `offset`.
fn field_at(root: &Node, offset: u64) -> Option<&Node> {
    let path = path_to_offset(root, offset)?;
    let mut node = root;
    for i in path {
        node = node.children.get(i)?;
    }
    Some(node)
}

#[function_component(ComponentView)]
pub fn component_view(props: &ComponentViewProps) -> Html {
    let s = &props.sstable;
    // Decoded components first, then the rest (hex only).
    let current = props
        .component
        .clone()
        .or_else(|| {
            s.summary
                .nodes
                .first()
                .map(|(c, _)| ComponentType::from_suffix(c))
        })
        .or_else(|| s.files.first().map(|(c, _)| c.clone()));
    let buttons = s.files.iter().map(|(c, _)| {
        let on_component = props.on_component.clone();
        let c2 = c.clone();
        let active = Some(c) == current.as_ref();
        html! {
            <button class={classes!("tab", active.then_some("active"))} aria-pressed={active.to_string()}
                    data-testid="component-button" onclick={Callback::from(move |_| on_component.emit(c2.clone()))}>
                { c.file_suffix() }
            </button>
        }
    }).collect::<Vec<Html>>();
    let Some(current) = current else {
        return html! { <p>{ "No files." }</p> };
    };
    let node = s.node(&current).cloned();
    let size = s
        .components
        .iter()
        .find(|(c, _)| *c == current)
        .map(|&(_, n)| n)
        .unwrap_or(0);
    let on_byte = {
        let on_highlight = props.on_highlight.clone();
        let node = node.clone();
        Callback::from(move |offset: u64| {
            let span = node
                .as_ref()
                .and_then(|n| field_at(n, offset))
                .and_then(|f| f.span);
            on_highlight.emit(Some(span.unwrap_or(Span::new(offset, offset + 1))));
        })
    };
    let selected_field = node.as_ref().zip(props.highlight).and_then(|(n, h)| field_at(n, h.start)).map(|f| {
        html! {
            <p class="selected-field" data-testid="selected-field">
                <strong>{ &f.label }</strong>{ " = " }{ &f.value }
                { f.span.map(|sp| format!("  (bytes {}..{}, {} bytes)", sp.start, sp.end, sp.len_bytes())).unwrap_or_default() }
            </p>
        }
    });
    html! {
        <section class="component-view" data-testid="component-view">
            <nav class="tabs" aria-label="Components">{ for buttons }</nav>
            { selected_field.unwrap_or_default() }
            <div class="split">
                <div class="tree-pane">
                    if let Some(root) = node {
                        <FieldTree {root} selected={props.highlight} on_select={props.on_highlight.reform(Some)} />
                    } else {
                        <p class="muted">{ format!("{} is not decoded as a field tree here: its bytes are on the right.", current.file_suffix()) }</p>
                    }
                </div>
                if let Some(file) = s.file(&current) {
                    <HexView file={file.clone()} size_bytes={size} highlight={props.highlight} {on_byte} />
                }
            </div>
        </section>
    }
}
