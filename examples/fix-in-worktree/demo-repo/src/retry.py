import time


def retry(action, attempts=3, wait_seconds=1.0):
    """Calls action() until it returns without raising, at most `attempts` times."""
    for attempt in range(attempts):
        time.sleep(wait_seconds)
        try:
            return action()
        except Exception:
            if attempt == attempts - 1:
                raise
