// The trace viewer: trace.html#RUN loads traces/RUN.js (a call agentgymRun({...}) with the run's
// episodes), lists its episodes, and trace.html#RUN/N shows episode N step by step. The DOM is
// built with textContent only: nothing a bundle says is ever parsed as HTML. A <script> tag
// (not fetch) loads the data, so the viewer works from file:// too.
(function () {
  "use strict";
  var loaded = {};  // run id -> data
  var want = null;  // the run id the page waits for

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    return node;
  }
  function clear(id) {
    var node = document.getElementById(id);
    while (node.firstChild) { node.removeChild(node.firstChild); }
    return node;
  }
  function num(value, digits) {
    return typeof value === "number" ? value.toFixed(digits) : String(value);
  }
  function table(headers, rows, sortable) {
    var t = el("table", null, sortable ? {"class": "sortable"} : {});
    var tr = el("tr");
    headers.forEach(function (h) { tr.appendChild(el("th", h, {scope: "col"})); });
    t.appendChild(el("thead")).appendChild(tr);
    var body = t.appendChild(el("tbody"));
    rows.forEach(function (cells) {
      var row = body.appendChild(el("tr"));
      cells.forEach(function (cell) { row.appendChild(cell); });
    });
    if (sortable && window.agentgymSortable) { window.agentgymSortable(t); }
    return t;
  }
  function cell(text, value, cls) {
    var attrs = {};
    if (value !== undefined) { attrs["data-value"] = String(value); }
    if (cls) { attrs["class"] = cls; }
    return el("td", text, attrs);
  }
  function parse() {
    var hash = decodeURIComponent(window.location.hash.replace(/^#/, ""));
    var match = /^([A-Za-z0-9-]+)(?:\/(\d+))?$/.exec(hash);
    return match ? {run: match[1], episode: match[2] === undefined ? null : Number(match[2])}
                 : null;
  }

  function showRun(data, episode) {
    document.title = data.title + " - agentgym leaderboard";
    clear("title").textContent = data.title;
    clear("meta").textContent = data.meta;
    var rows = data.records.map(function (r, i) {
      var link = el("a", "steps", {href: "#" + data.id + "/" + i});
      var show = el("td");
      show.appendChild(link);
      return [cell(i, i, "num"), cell(r.task, r.task, "num"), cell(r.trial, r.trial, "num"),
              cell(r.seed, r.seed, "num"), cell(r.success ? "yes" : "no", r.success ? 1 : 0),
              cell(num(r.episode_return, 3), r.episode_return, "num"),
              cell(r.steps, r.steps, "num"), cell(r.tokens, r.tokens, "num"), show];
    });
    var list = clear("episodes");
    list.appendChild(table(["episode", "task", "trial", "seed", "success", "return", "steps",
                            "tokens", "trace"], rows, true));
    var view = clear("episode");
    if (episode === null || !data.episodes[episode]) { return; }
    var ep = data.episodes[episode];
    view.appendChild(el("h2", "Episode " + episode + " (task " + ep.task + ", seed " + ep.seed +
                        ")", {id: "episode-" + episode}));
    var summary = "return " + num(ep.episode_return, 3) + ", " + ep.steps + " steps, " +
        (ep.success ? "success" : "no success") + (ep.failed ? ", failed: " + ep.failure : "");
    view.appendChild(el("p", summary, {"class": "meta"}));
    var steps = (ep.trace || []).map(function (s, i) {
      var action = el("td");
      action.appendChild(el("pre", s.action));
      if (s.raw_text !== null && s.raw_text !== undefined && s.raw_text !== s.action) {
        var details = el("details");
        details.appendChild(el("summary", "model output"));
        details.appendChild(el("pre", s.raw_text));
        action.appendChild(details);
      }
      var components = Object.keys(s.reward_components || {}).map(function (k) {
        var v = s.reward_components[k];
        return k + " " + (typeof v === "number" ? String(+v.toFixed(4)) : v);
      }).join(", ");
      var done = s.terminated ? "terminated" : s.truncated ? "truncated" : "";
      return [cell(i, i, "num"), action, cell(num(s.reward, 3), s.reward, "num"),
              cell(components), cell(s.valid_action ? "yes" : "no: " + (s.action_error || "")),
              cell(done + (s.success ? " (success)" : "")),
              cell((s.prompt_tokens || 0) + (s.completion_tokens || 0), undefined, "num")];
    });
    view.appendChild(table(["step", "action", "reward", "reward components", "valid", "end",
                            "tokens"], steps, false));
    var raw = el("details");
    raw.appendChild(el("summary", "the episode as submitted (JSON)"));
    raw.appendChild(el("pre", JSON.stringify(ep, null, 1)));
    view.appendChild(raw);
    view.scrollIntoView();
  }

  window.agentgymRun = function (data) {
    loaded[data.id] = data;
    var where = parse();
    if (where && where.run === data.id && want === data.id) { showRun(data, where.episode); }
  };

  function route() {
    var where = parse();
    if (!where) { return; }
    if (loaded[where.run]) { showRun(loaded[where.run], where.episode); return; }
    want = where.run;
    var script = el("script", null, {src: "traces/" + where.run + ".js"});
    script.onerror = function () {
      clear("title").textContent = "No such run: " + where.run;
      clear("meta").textContent = "traces/" + where.run + ".js could not be loaded.";
    };
    document.body.appendChild(script);
  }
  window.addEventListener("hashchange", route);
  route();
})();
