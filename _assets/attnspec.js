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

// A display equation or table wider than its box scrolls inside it: the box gets the class
// attnspec-scrolls (a shadow on the hidden side, attnspec.css) and a "scroll →" note under
// it. On a phone (at most 600 px) an equation up to a fifth too wide is first set in smaller
// type (down to 75 %) so that it fits. Checked after MathJax and on resize.
const attnspecWider = (el) => el.scrollWidth > el.clientWidth + 1;
function attnspecMarkScrolling(box, scrolls) {
  box.classList.toggle("attnspec-scrolls", scrolls);
  const note = box.nextElementSibling;
  const has = note && note.classList.contains("attnspec-scroll-note");
  if (scrolls && !has) {
    const add = document.createElement("div");
    add.className = "attnspec-scroll-note";
    add.setAttribute("aria-hidden", "true");
    add.textContent = "scroll →";
    box.after(add);
  } else if (!scrolls && has) {
    note.remove();
  }
}
function attnspecFitBoxes() {
  const phone = window.innerWidth <= 600;
  document.querySelectorAll('.bd-article mjx-container[display="true"]').forEach((m) => {
    const box = m.closest("div.math") || m;
    box.style.fontSize = "";
    if (phone && attnspecWider(m)) {
      const scale = Math.max(0.75, Math.floor(100 * m.clientWidth / m.scrollWidth) / 100);
      box.style.fontSize = `${Math.round(100 * scale)}%`;
    }
    attnspecMarkScrolling(m, attnspecWider(m));
  });
  document.querySelectorAll(".bd-article table").forEach((t) => {
    attnspecMarkScrolling(t, attnspecWider(t));
  });
}
function attnspecLayout() {
  attnspecMarkWideMath();
  attnspecFitBoxes();
}
window.addEventListener("load", () => {
  const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
  (typeset || Promise.resolve()).then(attnspecLayout);
});
let attnspecResize = null;
window.addEventListener("resize", () => {
  clearTimeout(attnspecResize);
  attnspecResize = setTimeout(attnspecLayout, 150);
});
