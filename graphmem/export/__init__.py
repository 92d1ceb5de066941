"""The graph going out: networkx, files, the HTML page."""
