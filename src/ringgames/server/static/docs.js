"use strict";
// Starts Swagger UI on /docs (an external script, so the page needs no inline script under the CSP).
window.addEventListener("DOMContentLoaded", () => {
  const el = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: el.dataset.openapiUrl, dom_id: "#swagger-ui", layout: "BaseLayout", deepLinking: true,
    showExtensions: true, showCommonExtensions: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
});
