from ..databases import databases_fixture

databases = databases_fixture()
