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
