// House rules no published plugin has: written here, each a few lines.

const ISSUE_NUMBER = /\b(issue|task)s?\s*#?\d+|#\d{2,}\b/i;

/** An issue number means nothing to a reader of the repository: say the reason instead. */
const noIssueNumbers = {
  meta: {
    type: 'suggestion',
    docs: { description: 'Comments and test names say the reason, not an issue number.' },
    schema: [],
    messages: { issue: 'Say the reason instead of an issue number ("{{text}}").' },
  },
  create(context) {
    const report = (node, text) => context.report({ node, messageId: 'issue', data: { text } });
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          const match = ISSUE_NUMBER.exec(comment.value);
          if (match) report(comment, match[0]);
        }
      },
      // it('…'), test('…'), describe('…'): the first argument names the test.
      CallExpression(node) {
        const callee = node.callee.type === 'MemberExpression' ? node.callee.object : node.callee;
        if (callee.type !== 'Identifier' || !/^(it|test|describe)$/.test(callee.name)) return;
        const name = node.arguments[0];
        const text =
          name?.type === 'Literal'
            ? String(name.value)
            : name?.type === 'TemplateLiteral'
              ? name.quasis.map((q) => q.value.cooked).join('')
              : '';
        const match = ISSUE_NUMBER.exec(text);
        if (match) report(name, match[0]);
      },
    };
  },
};

export const houseRules = { rules: { 'no-issue-numbers': noIssueNumbers } };
