
# ---
from django.urls import include, path

urlpatterns = [
    path("polls/", include("polls.urls")),
]
# ---

# ---
from django.urls import path, re_path

from . import views

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:question_id>/", views.detail),
    re_path(r"^archive/(?P<year>[0-9]{4})/$", views.archive),
    path("list/", views.QuestionList.as_view()),
]
# ---
def index(request):
    pass


def detail(request, question_id):
    pass


def archive(request, year):
    pass


class QuestionList:
    pass
# ---

# ---
from django.urls import include, path

from . import views

urlpatterns = [
    path("b/", include("b.urls")),
    path("x/", views.x),
]
# ---
def x(request):
    pass
# ---

# ---
from django.urls import include, path

urlpatterns = [
    path("a/", include("a.urls")),
]
# ---
from fastapi import FastAPI
app = FastAPI()
@app.get("/api/users")
def users():
    return []
# ---
import httpx
client = httpx.Client(base_url="https://example.io/api")
# ---
from .http import client

def sync(settings):
    settings.get("/users")
    return client.get("/users")
# ---
import httpx
import requests


class Sync:
    def __init__(self):
        self.client = httpx.Client(base_url="https://shop.example.com/api")
        self.session = requests.Session()
        self.cache = {}

    def pull(self):
        return self.client.get("/orders")

    def push(self):
        return self.session.post("https://shop.example.com/api/orders")

    def local(self):
        return self.cache.get("/orders")
# ---

# ---
from django.urls import path, re_path

from . import views

urlpatterns = [
# ---
def index(request):
    pass


def detail(request, question_id):
    pass
# ---

# ---
from django.urls import include, path

from . import views
# ---
def x(request):
    pass
# ---

# ---
from django.urls import include, path

urlpatterns = [
    path("a/", include("a.urls")),
]
# ---
from fastapi import FastAPI
app = FastAPI()
# ---
import httpx
client = httpx.Client(base_url="https://example.io/api")
# ---
from .http import client

def sync(settings):
# ---
import httpx
import requests


class Sync:
# ---

# ---
API_PREFIX = "/api/v1"
# ---
from fastapi import APIRouter

router = APIRouter(prefix="/items")


@router.get("/")
def read_items():
    return []


@router.get("/{item_id}")
def read_item(item_id: int):
    return item_id


@router.delete("/{item_id}")
def delete_item(item_id: int):
    return item_id
# ---
from fastapi import FastAPI

from app import items
from app.settings import API_PREFIX

app = FastAPI()
app.include_router(items.router, prefix=API_PREFIX)
# ---

# ---
from fastapi import APIRouter

router = APIRouter(prefix="/items", tags=["items"])


@router.get("/")
def read_items():
    return []


@router.get("/{id}")
def read_item(id: int):
    return id


@router.post("/")
def create_item():
    return 1
# ---
from fastapi import APIRouter

from app.api.routes import items

api_router = APIRouter()
api_router.include_router(items.router)
# ---
from bottle import get


@get("/hello/<name>")
def hello(name):
    return name
# ---
from flask import Flask
app = Flask(__name__)


@app.route("/hello")
def hello():
    return 'hi'
# ---
from flask import Flask
app = Flask(__name__)


@app.route("/users")
def users():
    return []
# ---

# ---
API_PREFIX = "/api/v1"
# ---
from fastapi import APIRouter

router = APIRouter(prefix="/items")
# ---
from fastapi import FastAPI

from app import items
from app.settings import API_PREFIX

app = FastAPI()
app.include_router(items.router, prefix=API_PREFIX)
# ---

# ---
from fastapi import APIRouter

router = APIRouter(prefix="/items", tags=["items"])
# ---
from fastapi import APIRouter

from app.api.routes import items

api_router = APIRouter()
api_router.include_router(items.router)
# ---
from bottle import get


@get("/hello/<name>")
def hello(name):
    return name
# ---
from flask import Flask
app = Flask(__name__)


@app.route("/hello")
def hello():
    return 'hi'
# ---
from flask import Flask
app = Flask(__name__)


@app.route("/users")
def users():
    return []
