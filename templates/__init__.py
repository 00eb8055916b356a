"""Jinja2 templates for mail bodies (text and HTML) and web pages."""
