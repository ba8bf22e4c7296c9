/**
 * The one stylesheet of every page a person decides on (ADR 0073): the gate's localhost page,
 * `/approve` from afar, the OAuth sign-in and consent pages, and the inbox. Phone-first: every
 * button, input and select at least 44 px tall with a 16 px font (so iOS does not zoom), nothing
 * wider than the screen, commands, paths and diffs in a monospace block that scrolls inside
 * itself, one primary action styled apart, and `prefers-color-scheme` followed (dark included).
 * A stylesheet file, never inline: the pages' strict CSP (`style-src 'self'`) stays as it is.
 * The sizes a person taps are `!important`, so a page's own rules can colour a control but never
 * make it smaller.
 */
export const DECISION_PAGE_CSS = `:root{color-scheme:light dark;--bg:#f4f4f1;--card:#fff;--fg:#1b1b1b;--muted:#5a5a56;--line:#cfcfca;--accent:#1f5fbf;--accent-fg:#fff;--warn-bg:#fff3d0;--warn-fg:#4d3700;--danger:#a4262c;--ok:#1d6b35;--code-bg:#eeeeea}
@media (prefers-color-scheme:dark){:root{--bg:#101214;--card:#1a1d20;--fg:#e8e8e4;--muted:#a9aba6;--line:#3b3f43;--accent:#7cb0ff;--accent-fg:#08111f;--warn-bg:#3a2f0c;--warn-fg:#ffe4a0;--danger:#ff9096;--ok:#7ad69a;--code-bg:#24282c}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%;background:var(--bg)}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg);overflow-wrap:anywhere;overflow-x:hidden}
main{max-width:40rem;margin:0 auto;padding:1rem;background:var(--card);min-height:100vh}
h1{font-size:1.35rem;margin:.25rem 0 1rem}h2{font-size:1.15rem;margin:1.25rem 0 .5rem}h3{font-size:1rem}
a{color:var(--accent)}
button,input,select,textarea{font-family:inherit;font-size:max(16px,1rem)!important;min-height:44px!important;color:var(--fg)}
button{padding:.6rem 1rem;border-radius:8px;border:1px solid var(--line);background:var(--card);cursor:pointer;margin:.25rem .5rem .25rem 0;max-width:100%}
button.primary{background:var(--accent);color:var(--accent-fg);border-color:var(--accent);font-weight:600}
button:disabled{opacity:.55;cursor:default}
input,select,textarea{width:100%;max-width:100%;padding:.5rem .65rem;border:1px solid var(--line);border-radius:8px;background:var(--bg)}
input[type=checkbox],input[type=radio]{width:1.5rem;min-width:1.5rem;margin:0 .6rem 0 0;vertical-align:middle;accent-color:var(--accent)}
label{display:block;margin:.6rem 0 .25rem}
label:has(>input[type=checkbox]),label:has(>input[type=radio]){display:flex;align-items:center;min-height:44px;margin:.2rem 0}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre,.mono-block{display:block;background:var(--code-bg);padding:.6rem .75rem;border-radius:6px;overflow:auto;max-width:100%;max-height:16rem;white-space:pre;font-size:.9rem;margin:.4rem 0}
img,svg,table,video{max-width:100%}
.warn{background:var(--warn-bg);color:var(--warn-fg);padding:.5rem .75rem;border-radius:6px}
.muted{color:var(--muted)}
.danger{color:var(--danger)}
[hidden]{display:none!important}
`;
