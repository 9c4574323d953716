// Sorting and filtering for the tables of a docsapi HTML report.
// The report's Content-Security-Policy admits this script by its SHA-256 hash and nothing
// else: no other script, no network. Each table sits in a div of class "interactive" with a
// hidden filter bar (a text box, one menu per categorical column, a row count) that this
// script reveals. A header cell's data-type says how its column sorts: "number" compares the
// cells' data-key (or text) as numbers (dates carry epoch milliseconds, roles and severities
// their rank), "text" compares the text. Empty cells sort last in both directions. A cell
// that shows a name may hold the named thing's id in data-id: the text box finds it by either.
(function () {
  "use strict";

  function sortKey(cell, numeric) {
    var key = cell.getAttribute("data-key");
    var text = key === null ? cell.textContent : key;
    if (text === "") {
      return null;
    }
    return numeric ? Number(text) : text.toLocaleLowerCase();
  }

  function compare(a, b) {
    if (a === b) {
      return 0;
    }
    return a < b ? -1 : 1;
  }

  function sortBy(table, column, header) {
    var numeric = header.getAttribute("data-type") === "number";
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.setAttribute("aria-sort", "none");
    });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var items = Array.prototype.map.call(body.rows, function (row, index) {
      return { row: row, key: sortKey(row.cells[column], numeric), index: index };
    });
    items.sort(function (x, y) {
      if (x.key === null || y.key === null) {
        return (x.key === null) - (y.key === null) || x.index - y.index;
      }
      var order = ascending ? compare(x.key, y.key) : compare(y.key, x.key);
      return order || x.index - y.index;
    });
    items.forEach(function (item) {
      body.appendChild(item.row);
    });
  }

  function applyFilters(box) {
    var rows = box.querySelector("table").tBodies[0].rows;
    var text = box.querySelector("input.filter-text").value.trim().toLocaleLowerCase();
    var selects = box.querySelectorAll("select[data-column]");
    var shown = 0;
    Array.prototype.forEach.call(rows, function (row) {
      var visible = text === "" || Array.prototype.some.call(row.cells, function (cell) {
        var searched = cell.textContent + "\n" + (cell.getAttribute("data-id") || "");
        return searched.toLocaleLowerCase().indexOf(text) !== -1;
      });
      Array.prototype.forEach.call(selects, function (select) {
        var cell = row.cells[Number(select.getAttribute("data-column"))];
        if (visible && select.value !== "" && cell.textContent !== select.value) {
          visible = false;
        }
      });
      row.hidden = !visible;
      shown += visible ? 1 : 0;
    });
    box.querySelector(".shown").textContent = shown + " of " + rows.length + " rows";
  }

  Array.prototype.forEach.call(document.querySelectorAll("div.interactive"), function (box) {
    var table = box.querySelector("table");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      // the column in words is shown; its name in the data is said on hover
      button.title = "Sort by " + th.textContent + " (" + th.title + ")";
      while (th.firstChild) {
        button.appendChild(th.firstChild);
      }
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        sortBy(table, column, th);
      });
    });
    var filters = box.querySelector(".filters");
    filters.hidden = false;
    filters.addEventListener("input", function () {
      applyFilters(box);
    });
    filters.addEventListener("change", function () {
      applyFilters(box);
    });
  });
})();
