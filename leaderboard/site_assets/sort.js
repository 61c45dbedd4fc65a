// Click a header of a table.sortable to sort its rows by that column; click again to reverse.
// Cells sort by their data-value (numbers numerically, text alphabetically), else their text.
// Tables made later (trace.js) call window.agentgymSortable(table).
(function () {
  "use strict";
  function key(cell) {
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
    var num = Number(raw);
    return raw.trim() !== "" && !isNaN(num) ? num : raw.trim().toLowerCase();
  }
  function compare(a, b) {
    if (typeof a === typeof b) { return a < b ? -1 : a > b ? 1 : 0; }
    return typeof a === "number" ? -1 : 1;  // numbers before text
  }
  function sortBy(table, th, index) {
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var order = compare(key(r1.cells[index]), key(r2.cells[index]));
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  function sortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.addEventListener("click", function () { sortBy(table, th, index); });
    });
  }
  window.agentgymSortable = sortable;
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
})();
