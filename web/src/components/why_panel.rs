//! The "why" panel of the merged read: for one merged row (or the partition's own deletion),
//! every version that lost and what beat it — a newer cell or liveness, which tombstone, an
//! expired TTL — and from which SSTable (`merge::Loss`, as `sstable-inspect read DIR
//! --explain` lists them).

use sstable_engine::datetime::{iso8601_micros, iso8601_secs};
use yew::prelude::*;

use crate::protocol::table::LossView;

#[derive(Properties, PartialEq)]
pub struct WhyPanelProps {
    /// What the panel explains, in words (the row's clustering).
    pub what: String,
    /// The losses of that row (already picked).
    pub losses: Vec<LossView>,
    /// The winning versions' SSTables: (part, SSTable), e.g. ("liveness", "nb-3-big").
    pub winners: Vec<(String, String)>,
    pub on_close: Callback<()>,
}

/// One loss in words: "cell v (nb-1-big, 2026-…) lost to a newer version in nb-3-big (…)".
pub fn loss_text(l: &LossView) -> String {
    let mut piece = l.what.clone();
    if let Some(c) = &l.column {
        piece.push_str(&format!(" {c}"));
    }
    if let Some(p) = &l.path_hex {
        piece.push_str(&format!(" [0x{p}]"));
    }
    let beaten = match l.beaten_by.as_str() {
        "newer" => format!(
            "a newer version in {} ({})",
            l.winner_sstable.as_deref().unwrap_or("?"),
            l.winner_timestamp_micros
                .map_or(String::new(), iso8601_micros)
        ),
        "tombstone" => format!(
            "a {} tombstone in {} (markedForDeleteAt {})",
            l.tombstone_kind.as_deref().unwrap_or("?"),
            l.winner_sstable.as_deref().unwrap_or("?"),
            l.winner_timestamp_micros
                .map_or(String::new(), iso8601_micros)
        ),
        _ => format!(
            "its TTL, which ran out at {}",
            l.expires_at_secs.map_or(String::new(), iso8601_secs)
        ),
    };
    format!(
        "{piece} from {} (timestamp {}) lost to {beaten}",
        l.sstable,
        iso8601_micros(l.timestamp_micros)
    )
}

#[function_component(WhyPanel)]
pub fn why_panel(p: &WhyPanelProps) -> Html {
    let close = {
        let on_close = p.on_close.clone();
        Callback::from(move |_| on_close.emit(()))
    };
    html! {
        <aside class="why-panel" data-testid="why-panel" aria-label="why">
            <h4>{ format!("Why: {}", p.what) }</h4>
            <ul>
                { for p.winners.iter().map(|(part, sstable)| html! {
                    <li data-testid="why-winner" data-part={part.clone()} data-sstable={sstable.clone()}>
                        { format!("{part}: won from {sstable}") }</li>
                }) }
            </ul>
            if p.losses.is_empty() {
                <p class="muted" data-testid="why-none">{ "Nothing lost here: no other SSTable held an older or shadowed version." }</p>
            } else {
                <ol>
                    { for p.losses.iter().map(|l| html! {
                        <li data-testid="why-loss" data-what={l.what.clone()} data-sstable={l.sstable.clone()}
                            data-column={l.column.clone().unwrap_or_default()} data-beaten-by={l.beaten_by.clone()}
                            data-winner-sstable={l.winner_sstable.clone().unwrap_or_default()}>
                            { loss_text(l) }</li>
                    }) }
                </ol>
            }
            <button class="tab" onclick={close} data-testid="why-close">{ "Close" }</button>
        </aside>
    }
}
