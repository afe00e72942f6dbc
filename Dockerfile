# One image for every role (web, worker, migrate); the role is the command.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 DATA_DIR=/data
WORKDIR /srv/autograder
COPY pyproject.toml README.md ./
COPY app app
COPY autograder autograder
COPY grading grading
COPY worker worker
COPY rubric rubric
COPY grader_tests grader_tests
COPY migrations migrations
RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -e .
VOLUME /data
EXPOSE 8000
CMD ["gunicorn", "-c", "python:autograder.gunicorn_conf", "-w", "3", "-b", "0.0.0.0:8000", "app.wsgi:app"]
