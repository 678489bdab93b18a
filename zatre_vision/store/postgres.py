"""PostgreSQL connection for a club server shared by several tables (needs the
optional ``club`` extra: psycopg)."""

from __future__ import annotations

from .base import StoreError


def connect_postgres(url: str):
    try:
        import psycopg
    except ImportError:
        raise StoreError("PostgreSQL needs psycopg: pip install 'zatre-vision[club]'") from None
    try:
        conn = psycopg.connect(url, autocommit=True)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to the club database ({exc.__class__.__name__})") from None
    return conn
