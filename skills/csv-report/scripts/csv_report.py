"""Summarise a CSV file: row count and the total of every numeric column, as Markdown."""
import argparse
import csv


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--format", choices=["markdown", "text"], default="markdown")
    args = parser.parse_args()
    totals: dict[str, float] = {}
    rows = 0
    with open(args.input, newline="") as f:
        for row in csv.DictReader(f):
            rows += 1
            for key, value in row.items():
                try:
                    totals[key] = totals.get(key, 0.0) + float(value)
                except (TypeError, ValueError):
                    pass
    print(f"# Report for {args.input}\n\nRows: {rows}\n")
    for key, total in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"- {key}: {total:g}")


if __name__ == "__main__":
    main()
