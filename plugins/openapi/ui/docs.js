// The API page: Swagger UI over this server's own /openapi.json. "Authorize" takes the API
// key; "Try it out" then calls this server with it.
window.addEventListener('load', () => {
  window.SwaggerUIBundle({ url: '../openapi.json', dom_id: '#api', deepLinking: true, persistAuthorization: false });
});
