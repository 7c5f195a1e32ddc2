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
