# A python assertion: `value: file://asserts/checks.py:short_enough` calls this function with the
# model's output and the test context; returning a number in [0, 1] makes it the score.
def short_enough(output, context):
    words = len(output.split())
    limit = context["vars"].get("max_words", 25)
    return 1.0 if words <= limit else max(0.0, 1 - (words - limit) / limit)
