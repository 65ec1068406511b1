/** The viewer's stylesheet, www/style.css, as text: a module the build writes (scripts/bundle-web.mjs). */
declare const css: string;
export default css;
