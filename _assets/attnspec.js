// attnspec book: every figure opens full size on click (in a new tab).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("figure img, .cell_output img").forEach((img) => {
    if (img.closest("a")) return;
    const link = document.createElement("a");
    link.href = img.currentSrc || img.src;
    link.target = "_blank";
    link.rel = "noopener";
    link.className = "attnspec-zoom";
    link.title = "Open the figure full size";
    img.replaceWith(link);
    link.appendChild(img);
  });
});

// An inline formula wider than its paragraph gets its own scrolling box (class attnspec-wide),
// so a long formula never widens the page on a phone. Checked after MathJax and on resize.
function attnspecMarkWideMath() {
  document.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])').forEach((m) => {
    m.classList.remove("attnspec-wide");
    let box = m.parentElement;   // the nearest block: an inline element has no clientWidth
    while (box && getComputedStyle(box).display.startsWith("inline")) box = box.parentElement;
    if (box && m.getBoundingClientRect().width > box.clientWidth) m.classList.add("attnspec-wide");
  });
}
window.addEventListener("load", () => {
  const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
  (typeset || Promise.resolve()).then(attnspecMarkWideMath);
});
let attnspecResize = null;
window.addEventListener("resize", () => {
  clearTimeout(attnspecResize);
  attnspecResize = setTimeout(attnspecMarkWideMath, 150);
});
