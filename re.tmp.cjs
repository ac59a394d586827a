const acorn=require('acorn');
const fs=require("fs"),vm=require("vm"),{performance}=require("perf_hooks");
const src=fs.readFileSync(process.argv[2],"utf8");
const ast=acorn.parse(src,{ecmaVersion:'latest',sourceType:'script'});
const res=[];(function visit(n){if(!n||typeof n.type!=='string')return;if(n.type==='Literal'&&n.regex)res.push(n);for(const k in n){const v=n[k];if(Array.isArray(v))v.forEach(x=>x&&typeof x==='object'&&visit(x));else if(v&&typeof v==='object'&&typeof v.type==='string')visit(v)}})(ast);
function t(s){let best=1e9;for(let i=0;i<7;i++){const a=performance.now();new vm.Script(s+"\n//"+i+Math.random());best=Math.min(best,performance.now()-a)}return best}
t("1");
const base=t(src);
let out=src;for(const n of [...res].sort((a,b)=>b.start-a.start)) out=out.slice(0,n.start)+'null'+out.slice(n.end);
console.log('regex literals',res.length,'compile min',base.toFixed(2),'without regexes',t(out).toFixed(2));
// per regex cost
const costs=res.map(n=>{const s=`function f(){return ${src.slice(n.start,n.end)}}`;return [t(s)-t('function f(){return null}'),src.slice(n.start,n.end)]}).sort((a,b)=>b[0]-a[0]);
let sum=0;for(const c of costs)sum+=c[0];console.log('sum',sum.toFixed(2));
for(const c of costs.slice(0,25))console.log(c[0].toFixed(3),c[1].slice(0,120));
