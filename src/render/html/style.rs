//! The page's inline CSS and script (nothing is fetched).

pub(super) const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--head:#f6f8fa;--link:#0969da;
--flag:#8c959f;--hidden:#cf222e;--good:#1a7f37;--bad:#cf222e;--rest:#c8d1da;
--c0:#0969da;--c1:#bf8700;--c2:#8250df;--c3:#1a7f37;--c4:#bc4c00;--c5:#bf3989;--c6:#1b7c83;--c7:#6e7781;
--del:#ffebe9;--ins:#dafbe1}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--head:#151b23;--link:#4493f8;
--flag:#656c76;--hidden:#ff7b72;--good:#3fb950;--bad:#ff7b72;--rest:#3d444d;
--c0:#4493f8;--c1:#d29922;--c2:#ab7df8;--c3:#3fb950;--c4:#f0883e;--c5:#f778ba;--c6:#39c5cf;--c7:#9198a1;
--del:#4b1d1f;--ins:#183a24}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:76rem;padding:0 1.25rem 2rem;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--link)}
h1{font-size:1.6rem;margin:1rem 0 .5rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{font-size:1.05rem;margin:1.25rem 0 .4rem}h4{font-size:.95rem;margin:1rem 0 .3rem}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--head);border:1px solid var(--line);padding:.4rem .6rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:.2rem 0 .6rem}
.verdict{font-weight:600;padding:.5rem .75rem;border-left:4px solid}.verdict.bad{border-color:var(--bad)}.verdict.good{border-color:var(--good)}
nav{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:.3rem 0;z-index:2}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9rem}
.sources{padding-left:1.2rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-variant-numeric:tabular-nums;max-width:100%}
caption{text-align:left;color:var(--muted);font-size:.9rem;padding:.2rem 0}
th,td{border:1px solid var(--line);padding:.25rem .5rem;vertical-align:top;text-align:left}
td[data-k]{text-align:right}td.prose{max-width:36rem}
thead th{background:var(--head);position:sticky;top:2rem}
tfoot th,tfoot td{font-weight:600}tr.more td,tr.more th,.more{color:var(--muted);font-style:italic}
th button{all:unset;cursor:pointer}th button:focus-visible{outline:2px solid var(--link)}
th[aria-sort=ascending] button::after{content:" \25B2"}th[aria-sort=descending] button::after{content:" \25BC"}
.muted{color:var(--muted)}
figure.chart{margin:.5rem 0 1rem}figure.chart>svg{max-width:100%;height:auto;display:block}
svg text{fill:var(--fg);font:12px system-ui,sans-serif}svg .val{fill:var(--muted)}svg .axis{stroke:var(--line)}
.flag{fill:var(--flag)}.hidden{fill:var(--hidden)}.rest{fill:var(--rest)}
.c0{fill:var(--c0)}.c1{fill:var(--c1)}.c2{fill:var(--c2)}.c3{fill:var(--c3)}.c4{fill:var(--c4)}.c5{fill:var(--c5)}.c6{fill:var(--c6)}.c7{fill:var(--c7)}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.2rem 1rem;padding:0;margin:.3rem 0;font-size:.85rem}.legend svg{vertical-align:-1px}
.ex{border:1px solid var(--line);border-radius:4px;padding:.3rem .7rem;margin:.4rem 0}.ex p{margin:.2rem 0}
.pair:target,.category:target,tr:target{outline:2px solid var(--link);outline-offset:4px}
#summary h2{font-size:1.05rem;margin:.8rem 0 .2rem;border:0;padding:0}#summary h2 .muted{font-weight:400;font-size:.9rem}
#summary .verdict{margin:.4rem 0}.lines{margin:.2rem 0;padding-left:1.4rem}.lines li{margin:.1rem 0}
.sources{margin:.6rem 0 .2rem}.when{color:var(--muted);margin:.2rem 0}
.grade{font-weight:700}span.grade{display:inline-block;min-width:1.5em;text-align:center;border:1px solid var(--line);border-radius:3px}
.gD,.gF{color:var(--bad)}.gA{color:var(--good)}
.id{display:inline-block;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.path{overflow-wrap:anywhere}.cmd{user-select:all}
.cmd .w{display:inline-block;max-width:100%;white-space:nowrap;overflow-x:auto;vertical-align:bottom}
pre.diff{white-space:pre-wrap}.diff span{display:block}.diff .del{background:var(--del)}.diff .ins{background:var(--ins)}
details{margin:.3rem 0 1rem}details>summary{cursor:pointer;color:var(--muted)}
@media (max-width:40rem){
body{padding:0 .75rem 2rem}h1{font-size:1.35rem}
table,tbody,tfoot,tr,td,th{display:block}table{border:0;width:100%}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
caption{display:block}tr{border:1px solid var(--line);margin:0 0 .5rem}
td,th{border:0;border-top:1px solid var(--line);text-align:right;padding:.15rem .5rem}
tr>:first-child{border-top:0}th[scope=row]{text-align:left;background:var(--head)}
td[data-label]::before{content:attr(data-label);float:left;margin-right:1rem;color:var(--muted);text-align:left;font-style:normal;font-weight:400}
td.prose{max-width:none;text-align:left}td.prose::before{float:none;display:block}
}
@media print{
:root{--bg:#fff;--fg:#000;--muted:#333;--line:#888;--head:#fff;--link:#000;--flag:#fff;--hidden:#000;--rest:#eee;
--good:#000;--bad:#000;--c0:#000;--c1:#fff;--c2:#888;--c3:#ddd;--c4:#444;--c5:#eee;--c6:#bbb;--c7:#666}
body{max-width:none;padding:0;font-size:11pt}nav{display:none}thead th{position:static}
svg .bar,.legend rect{stroke:#000;stroke-width:.7}a{text-decoration:none}
.ex,figure.chart,tr{break-inside:avoid}h2,h3,h4{break-after:avoid}
}
"#;

/// Sorting by a click on a column header (numbers as numbers), and on load
/// when the address ends in `#sort=TABLE:COLUMN:asc|desc`. Rows in `tfoot`
/// (totals, "and K more") stay last.
pub(super) const SCRIPT: &str = r#"
(function(){
function key(c){if(!c)return '';var v=c.getAttribute('data-v');if(v!==null)return parseFloat(v);
var t=c.textContent.trim();var n=Number(t.replace(/[,%]/g,''));return t!==''&&!isNaN(n)?n:t.toLowerCase();}
function sort(table,col,dir){var body=table.tBodies[0];if(!body)return;
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
var r=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));return dir==='desc'?-r:r;});
rows.forEach(function(r){body.appendChild(r);});
var heads=table.tHead.rows[0].cells;
for(var i=0;i<heads.length;i++){heads[i].setAttribute('aria-sort',i===col?(dir==='desc'?'descending':'ascending'):'none');}
table.setAttribute('data-sorted',col+':'+dir);}
var tables=document.querySelectorAll('table.sortable');
Array.prototype.forEach.call(tables,function(table){var heads=table.tHead.rows[0].cells;
Array.prototype.forEach.call(heads,function(th,i){var b=document.createElement('button');b.type='button';
while(th.firstChild)b.appendChild(th.firstChild);th.appendChild(b);
b.addEventListener('click',function(){sort(table,i,th.getAttribute('aria-sort')==='descending'?'asc':'desc');});});});
var m=/^#sort=([A-Za-z0-9-]+):([0-9]+):(asc|desc)$/.exec(location.hash);
if(m){var t=document.getElementById(m[1]);if(t&&t.classList.contains('sortable'))sort(t,parseInt(m[2],10),m[3]);}
document.documentElement.setAttribute('data-script','ran');
})();
"#;
