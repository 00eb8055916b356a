"""The `pbem` command line."""

import click


@click.group()
def main():
    """pbem: Spades by email."""
