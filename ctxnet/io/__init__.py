"""Ways in and out: bulk import (and export) through the API."""
