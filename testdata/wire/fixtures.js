import superagent from 'superagent';
const API_ROOT = 'https://conduit.example.io/api';
const requests = {
  get: url => superagent.get(`${API_ROOT}${url}`).then(r => r.body),
};
export function allTags() {
  return requests.get('/tags');
}
export function article(slug) {
  return requests.get(`/articles/${slug}`);
}
// ---
const Koa = require('koa');
const Router = require('@koa/router');
const app = new Koa();
const users = new Router({ prefix: '/users' });
users.get('/:id', showUser);
users.post('/', createUser);
const api = new Router();
api.use('/api', users.routes());
app.use(api.routes());
async function showUser(ctx) {}
async function createUser(ctx) {}
// ---
async function listUsers(request, reply) { return []; }
async function createUser(request, reply) { return 1; }
module.exports = async function (fastify, opts) {
  fastify.get('/users', listUsers);
  fastify.route({ method: 'POST', url: '/users', handler: createUser });
};
// ---
const Fastify = require('fastify');
const users = require('./routes/users');
const app = Fastify({ logger: true });
app.register(users, { prefix: '/v1' });
app.register(async (admin) => {
  admin.get('/stats', stats);
}, { prefix: '/admin' });
app.get('/health', health);
async function stats() {}
async function health() {}
// ---
export default function Page() { return null; }
// ---
const { createProxyMiddleware } = require('http-proxy-middleware');
module.exports = function(app) {
  app.use('/api', createProxyMiddleware({ target: 'http://backend:8000', pathRewrite: { '^/api': '' } }));
};
// ---
export function App() {
  fetch('/api/users');
  fetch('/api/orders');
}
// ---
const Router = require('@koa/router');

module.exports = new Router({ prefix: '/books' })
  .get('/', listBooks)
  .post('/:id', saveBook);

function listBooks(ctx) {}
function saveBook(ctx) {}
// ---
const Koa = require('koa');
const Router = require('@koa/router');
const books = require('./books');

const api = new Router();
api.use('/api', books.routes());
const app = new Koa();
app.use(api.routes());
// ---
import superagent from 'superagent';
const API_ROOT = 'https://conduit.example.io/api';
// ---
const Koa = require('koa');
const Router = require('@koa/router');
const app = new Koa();
// ---
async function listUsers(request, reply) { return []; }
// ---
const Fastify = require('fastify');
const users = require('./routes/users');
// ---
const { createProxyMiddleware } = require('http-proxy-middleware');
// ---
export function App() {
  fetch('/api/users');
  fetch('/api/orders');
}
// ---
const Router = require('@koa/router');
// ---
const Koa = require('koa');
const Router = require('@koa/router');
// ---
const express = require('express');
const app = express();
app.get('/ping', (req, res) => res.send('pong'));
// ---
module.exports = (app) => {
  app.use('/api', createProxyMiddleware({ target: 'http://backend', pathRewrite: { '^/api': '' } }));
};
// ---
export function load() {
  return fetch('/api/users');
}
// ---
const express = require('express');
const app = express();
// ---
module.exports = (app) => {
// ---
export function load() {
  return fetch('/api/users');
}
