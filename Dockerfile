# Cellar application image: web (gunicorn), worker and beat share it (see docker-compose.yml).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=webapp.settings
# iputils-ping: host checks (ICMP); snmp: net-snmp tools for operators debugging an agent;
# postgresql-client (15, as the pg15 database image): pg_dump/pg_restore for manage.py backup/restore.
RUN apt-get update \
 && apt-get install -y --no-install-recommends iputils-ping snmp postgresql-client \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# collectstatic needs settings to import; these throwaway values never reach a running container.
RUN SECRET_KEY=build DATABASE_URL=postgres://build@localhost/build REDIS_URL=redis://localhost/0 \
    python manage.py collectstatic --noinput
RUN useradd --system --uid 10001 cellar && mkdir -p /app/state/spool && chown -R cellar /app/state
USER cellar
EXPOSE 8000
CMD ["gunicorn", "webapp.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
