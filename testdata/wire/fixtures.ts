import { Router } from 'express';
const router = Router();
router.get('/tags', listTags);
export async function listTags() {}
export default router;
// ---
import { Router } from 'express';
import tagsController from './tag/tag.controller';
const api = Router()
  .use(tagsController);

export default Router().use('/api', api);
// ---
import express from 'express';
import routes from './app/routes/routes';
const app = express();
app.use(routes);
// ---
import { Hono } from 'hono';
const books = new Hono();
books.get('/', listBooks);
books.get('/:id', showBook);
function listBooks(c) {}
function showBook(c) {}
const app = new Hono().basePath('/api');
app.route('/books', books);
export default app;
// ---
import { Controller, Get, Post, UseGuards } from '@nestjs/common';

@Controller('users')
export class UsersController {
  @Get()
  findAll() { return []; }

  @Get(':id')
  findOne() { return {}; }

  @Post()
  @UseGuards(AuthGuard)
  create() { return 1; }
}
// ---
import { Controller, Get } from '@nestjs/common';

@Controller('users')
export class UsersController {
  @Get(':id')
  findOne() { return {}; }
}
// ---
export async function GET(request: Request) { return Response.json({}); }
export async function DELETE() { return new Response(null); }
// ---
export async function POST() { return Response.json({}); }
// ---
export default function handler(req, res) { res.status(200).json({}); }
// ---
import axios from 'axios';
axios.defaults.baseURL = 'https://shop.example.com/api';
// ---
import ky from 'ky';
import axios from 'axios';
import { request as __request } from './core/request';

const api = ky.create({ prefixUrl: 'https://shop.example.com/v1' });

export async function books() {
  return api.get('books').json();
}

export async function book(id: string) {
  return __request(OpenAPI, { method: 'GET', url: '/api/books/{id}', path: { id } });
}

export async function stats() {
  return axios.get('/admin/stats');
}

export function notARequest(router: { route(o: object): void }) {
  router.route({ method: 'POST', url: '/users' });
}
// ---
import axios from 'axios';
export const api = axios.create({ baseURL: '/api' });
// ---
import { api } from './client';
const cache = new Map<string, string>();
export function listUsers() {
  cache.get('/users');
  return api.get<string[]>('/users');
}
// ---
import { Injectable, inject } from '@angular/core';
import { HttpClient } from '@angular/common/http';
import axios from 'axios';

@Injectable({ providedIn: 'root' })
export class UsersService {
  constructor(private http: HttpClient) {}

  list() {
    return this.http.get<User[]>('/api/users');
  }

  remove(id: number) {
    return this.http.delete(`/api/users/${id}`);
  }
}

export class OrdersService {
  private http = inject(HttpClient);
  private api = axios.create({ baseURL: '/api/v2' });
  private cache = new Map<string, string>();

  all() {
    return this.http.get('/api/orders');
  }

  stats() {
    return this.api.get('/stats');
  }

  cached() {
    return this.cache.get('/api/users');
  }
}
// ---
import { Hono } from 'hono';

const users = new Hono()
  .get('/', listUsers)
  .get('/:id', showUser);

export default users;
export function listUsers() {}
export function showUser() {}
// ---
import { Hono } from 'hono';

export default new Hono()
  .get('/', listBooks)
  .post('/', addBook);

export function listBooks() {}
export function addBook() {}
// ---
import { Hono } from 'hono';
import users from './routes/users';
import books from './routes/books';

const app = new Hono().basePath('/api');
app.route('/users', users);
app.route('/books', books);
export default app;
// ---
import { Router } from 'express';
const router = Router();
// ---
import { Router } from 'express';
import tagsController from './tag/tag.controller';
// ---
import express from 'express';
import routes from './app/routes/routes';
// ---
import { Hono } from 'hono';
const books = new Hono();
books.get('/', listBooks);
// ---
import { Controller, Get, Post, UseGuards } from '@nestjs/common';
// ---
import { Controller, Get } from '@nestjs/common';
// ---
import axios from 'axios';
axios.defaults.baseURL = 'https://shop.example.com/api';
// ---
import ky from 'ky';
import axios from 'axios';
import { request as __request } from './core/request';
// ---
import axios from 'axios';
export const api = axios.create({ baseURL: '/api' });
// ---
import { api } from './client';
const cache = new Map<string, string>();
// ---
import { Injectable, inject } from '@angular/core';
// ---
import { Hono } from 'hono';

const users = new Hono()
// ---
import { Hono } from 'hono';

export default new Hono()
// ---
import { Hono } from 'hono';
import users from './routes/users';
import books from './routes/books';
// ---
import axios from "axios";

export const api = axios.create({ baseURL: "/api/v1" });
// ---
import { api } from "./api";

export function listItems() {
  return api.get("/items/");
}

export function showItem(id: number) {
  return api.get(`/items/${id}`);
}

export function health() {
  return fetch("/health");
}

export function addItem() {
  return api.post("/items/", {});
}
// ---
import axios from "axios";

export const api = axios.create({ baseURL: "http://localhost:8000/api/v1" });
// ---
import { api } from "./client";

export async function listItems() {
  return api.get("/items/");
}

export async function getItem(id: number) {
  return api.get(`/items/${id}`);
}

export async function createItem() {
  return fetch("/api/v1/items", { method: "POST" });
}

export async function ping() {
  return fetch("/health");
}

export function notARequest(router: { get(p: string): void }) {
  router.get("/items");
}
// ---
export const cache = new Map<string, string>();
// ---
import { cache } from "./cache";

export function cached() {
  return cache.get("/items");
}
// ---
import axios from "axios";

export const api = axios.create({ baseURL: "/api/v1" });
// ---
import { api } from "./api";
// ---
import axios from "axios";

export const api = axios.create({ baseURL: "http://localhost:8000/api/v1" });
// ---
import { api } from "./client";
// ---
export const cache = new Map<string, string>();
// ---
import { cache } from "./cache";

export function cached() {
  return cache.get("/items");
}
