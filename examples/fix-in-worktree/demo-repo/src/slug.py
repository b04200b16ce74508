import re


def slug(text):
    """A URL slug: lower case, runs of other characters as one dash."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).lstrip("-")
