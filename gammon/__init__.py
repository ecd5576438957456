"""gammon package."""
