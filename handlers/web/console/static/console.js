// Balcão staff console: small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  // Avisos: the recipient count follows the audience as it is chosen.
  var form = document.getElementById("compose");
  var live = document.getElementById("live-count");
  if (form && live) {
    var update = function () {
      var query = new URLSearchParams({
        audience: form.audience.value, days: form.days.value, topic: form.topic.value
      });
      fetch("/painel/avisos/contagem?" + query.toString(), {credentials: "same-origin"})
        .then(function (response) { return response.json(); })
        .then(function (data) { live.textContent = data.text || data.error || ""; })
        .catch(function () { live.textContent = ""; });
    };
    ["change", "input"].forEach(function (kind) {
      form.audience.addEventListener(kind, update);
      form.days.addEventListener(kind, update);
      form.topic.addEventListener(kind, update);
    });
    update();
  }
  // The notice form: the infraction is found by its words as they are typed (without this file, "Search" posts
  // the form and it comes back with the same buttons); choosing one fills its code and law in place.
  var search = document.getElementById("f-infraction_search");
  var results = document.getElementById("infraction-results");
  if (search && results && window.fetch) {
    var timer = null;
    var show = function (data) {
      results.textContent = "";
      if (!data.results.length) {
        var none = document.createElement("p");
        none.textContent = data.empty;
        results.appendChild(none);
        return;
      }
      var list = document.createElement("ul");
      list.className = "found";
      data.results.forEach(function (row) {
        var item = document.createElement("li");
        var button = document.createElement("button");
        button.type = "submit"; button.name = "choose"; button.value = row.choice; button.className = "found";
        button.textContent = row.label;
        item.appendChild(button);
        list.appendChild(item);
      });
      results.appendChild(list);
    };
    search.addEventListener("input", function () {
      clearTimeout(timer);
      var words = search.value.trim();
      if (words.length < 3) { results.textContent = ""; return; }
      timer = setTimeout(function () {
        fetch(search.dataset.suggest + "?" + new URLSearchParams({q: words}).toString(), {credentials: "same-origin"})
          .then(function (response) { return response.json(); })
          .then(show)
          .catch(function () { results.textContent = ""; });
      }, 250);
    });
    results.addEventListener("click", function (event) {
      var button = event.target.closest("button.found");
      if (!button) { return; }
      event.preventDefault();
      var parts = button.value.split(":");
      var code = document.getElementById("f-infraction_code");
      var law = document.getElementById("f-rulebook");
      code.value = parts[1];
      if (law) { law.value = parts[0]; }
      var name = document.getElementById("infraction-name");
      name.textContent = name.dataset.chosen + " " + button.textContent;
      results.textContent = "";
      code.focus();
    });
  }
  // A broadcast's progress moves by itself (server-sent events).
  var progress = document.getElementById("progress");
  if (progress && progress.dataset.active === "1" && window.EventSource) {
    var source = new EventSource(progress.dataset.events);
    source.addEventListener("progress", function (event) {
      var data = JSON.parse(event.data);
      document.getElementById("p-summary").textContent = data.summary;
      var bar = document.getElementById("p-bar");
      bar.max = data.recipients; bar.value = data.done; bar.textContent = data.done;
      ["sent", "waiting", "unreachable", "failed", "cancelled"].forEach(function (name) {
        document.getElementById("p-" + name).textContent = data[name];
      });
      if (!data.stoppable) {  // nothing waits any more: "Stop sending" would stop nothing
        var stop = document.getElementById("stop");
        if (stop) { stop.hidden = true; document.getElementById("finished").hidden = false; }
      }
      if (data.status !== "active") { source.close(); }
    });
    source.onerror = function () { source.close(); };
  }
  // Open311 keys: a button copies the new key (the field is selectable by hand too).
  var copy = document.getElementById("copy-key");
  var key = document.getElementById("the-key");
  if (copy && key && navigator.clipboard) {
    copy.hidden = false;
    copy.addEventListener("click", function () {
      navigator.clipboard.writeText(key.value).then(function () {
        document.getElementById("copy-status").textContent = copy.dataset.copied;
      });
    });
  }
  if (key) { key.addEventListener("focus", function () { key.select(); }); }
})();
