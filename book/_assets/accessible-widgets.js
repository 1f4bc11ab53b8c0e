// Loaded on pages with widgets, after the ipywidgets embed manager (nb_ipywidgets_js in
// _config.yml). A slider's handle (role="slider") gets no name from ipywidgets: the
// widget's description is a <label> beside it that names nothing. Give each handle, and
// any select or input left without one, the description as its aria-label, as the
// widgets are drawn (they are drawn after the page has loaded).
(function () {
  "use strict";
  var UNNAMED =
    ".jupyter-widgets [role=slider]:not([aria-label]), " +
    ".jupyter-widgets select:not([aria-label]):not([id]), " +
    ".jupyter-widgets input:not([aria-label]):not([id])";

  function description(control) {
    var widget = control.closest(".widget-inline-hbox, .jupyter-widgets");
    var label = widget && widget.querySelector(".widget-label");
    return label ? label.textContent.trim() : "";
  }

  var pending = false;
  function nameControls() {
    pending = false;
    document.querySelectorAll(UNNAMED).forEach(function (control) {
      var text = description(control);
      if (text) {
        control.setAttribute("aria-label", text);
      }
    });
  }

  new MutationObserver(function () {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(nameControls);
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
