//! The decoded fields of a component as an expandable tree. Clicking a field highlights its bytes
//! in the hex view; a byte clicked there selects (and reveals) its innermost field here.

use std::collections::HashSet;

use sstable_engine::span::{Node, Span};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FieldTreeProps {
    pub root: Node,
    /// The highlighted byte range (a field's span).
    pub selected: Option<Span>,
    pub on_select: Callback<Span>,
}

/// Index path (`0.3.1`) of the innermost node whose span contains `offset`.
pub fn path_to_offset(node: &Node, offset: u64) -> Option<Vec<usize>> {
    for (i, child) in node.children.iter().enumerate() {
        if let Some(mut rest) = path_to_offset(child, offset) {
            rest.insert(0, i);
            return Some(rest);
        }
    }
    match node.span {
        Some(s) if s.contains(offset) => Some(Vec::new()),
        _ => None,
    }
}

fn key(path: &[usize]) -> String {
    path.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

#[function_component(FieldTree)]
pub fn field_tree(props: &FieldTreeProps) -> Html {
    // The root starts open; a selection from the hex view opens every ancestor of its field.
    let expanded = use_state(|| HashSet::from([String::new()]));
    {
        let expanded = expanded.clone();
        let root = props.root.clone();
        use_effect_with(props.selected, move |selected| {
            if let Some(path) = selected.and_then(|s| path_to_offset(&root, s.start)) {
                let mut next = (*expanded).clone();
                for depth in 0..path.len() {
                    if let Some(prefix) = path.get(..depth) {
                        next.insert(key(prefix));
                    }
                }
                if next != *expanded {
                    expanded.set(next);
                }
            }
        });
    }
    let toggle = {
        let expanded = expanded.clone();
        Callback::from(move |k: String| {
            let mut next = (*expanded).clone();
            if !next.remove(&k) {
                next.insert(k);
            }
            expanded.set(next);
        })
    };
    html! {
        <ul class="tree" role="tree" data-testid="field-tree">
            { render(&props.root, &mut Vec::new(), &expanded, &toggle, props) }
        </ul>
    }
}

fn render(
    node: &Node,
    path: &mut Vec<usize>,
    expanded: &HashSet<String>,
    toggle: &Callback<String>,
    props: &FieldTreeProps,
) -> Html {
    let k = key(path);
    let open = expanded.contains(&k);
    let has_children = !node.children.is_empty();
    let selected = node.span.is_some() && node.span == props.selected;
    let activate = {
        let span = node.span;
        let on_select = props.on_select.clone();
        let toggle = toggle.clone();
        let k = k.clone();
        Callback::from(move |()| match span {
            Some(s) => on_select.emit(s),
            None => toggle.emit(k.clone()),
        })
    };
    let onclick = activate.reform(|_: MouseEvent| ());
    let on_toggle = {
        let toggle = toggle.clone();
        let k = k.clone();
        Callback::from(move |e: MouseEvent| {
            e.stop_propagation();
            toggle.emit(k.clone());
        })
    };
    let on_key = {
        let toggle = toggle.clone();
        let k = k.clone();
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" | " " => {
                e.prevent_default();
                activate.emit(());
            }
            "ArrowRight" | "ArrowLeft" => toggle.emit(k.clone()),
            _ => {}
        })
    };
    let span_text = node
        .span
        .map(|s| format!("{}..{}", s.start, s.end))
        .unwrap_or_default();
    let children = if open && has_children {
        let items: Vec<Html> = node
            .children
            .iter()
            .enumerate()
            .map(|(i, c)| {
                path.push(i);
                let h = render(c, path, expanded, toggle, props);
                path.pop();
                h
            })
            .collect();
        html! { <ul role="group">{ for items }</ul> }
    } else {
        html! {}
    };
    html! {
        <li role="treeitem" aria-expanded={has_children.then(|| open.to_string())}>
            <div class={classes!("field", selected.then_some("selected"))} tabindex="0" {onclick} onkeydown={on_key}
                 data-testid="field" data-span={span_text.clone()}>
                if has_children {
                    <span class="twisty" onclick={on_toggle}>{ if open { "▾" } else { "▸" } }</span>
                } else {
                    <span class="twisty"></span>
                }
                <span class="label">{ &node.label }</span>
                if !node.value.is_empty() {
                    <span class="value">{ &node.value }</span>
                }
                if !span_text.is_empty() {
                    <span class="span">{ span_text }</span>
                }
            </div>
            { children }
        </li>
    }
}
