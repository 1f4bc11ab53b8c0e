// Loaded after require.js and before the ipywidgets embed manager (see nb_ipywidgets_js in
// _config.yml). Two adjustments so that widgets render from the site's own files:
(function () {
  "use strict";
  // 1. Each module of the embed manager ("@jupyter-widgets/base", ".../controls",
  //    ".../html-manager/dist/libembed-amd", ...) finds its fonts in the folder that
  //    require.js resolves for the module's name: by default a folder beside the page.
  //    Point them all at _static/html-manager/, where the fonts are (this file lives in
  //    _static/).
  var staticBase = document.currentScript.src.replace(/[^/]*$/, "");
  window.require.config({
    paths: {
      "@jupyter-widgets": staticBase + "html-manager",
      "@jupyter-widgets/html-manager/dist": staticBase + "html-manager",
    },
  });

  // 2. The widgets typeset their labels with the MathJax 2 call MathJax.Hub.Queue; the book
  //    uses MathJax 3. Give whatever object is (or later becomes) window.MathJax a small
  //    Hub.Queue that forwards to MathJax 3's typesetPromise.
  function queue(job) {
    var element = job && job[2];
    var mathjax = window.MathJax;
    if (!element || !mathjax || !mathjax.startup || !mathjax.startup.promise) {
      return;
    }
    mathjax.startup.promise.then(function () {
      return mathjax.typesetPromise([element]);
    });
  }
  function withHub(value) {
    if (value && typeof value === "object" && !value.Hub) {
      value.Hub = { Queue: queue };
    }
    return value;
  }
  var current = withHub(window.MathJax);
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: function () {
      return current;
    },
    set: function (value) {
      current = withHub(value);
    },
  });
})();
