"""What every spreadsheet export (CSV, XLSX) shares: cells that cannot run as formulas."""
