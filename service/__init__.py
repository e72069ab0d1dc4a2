"""The table service: `tonk serve`, an ASGI app (Litestar) over tonk.application.tables."""
