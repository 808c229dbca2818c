package rule

import "strconv"

// Printing contexts: what surrounds an operand decides its parentheses.
const (
	ctxTop      = iota // the whole rule, or inside parentheses
	ctxOrRight         // right operand of ||: an || needs parentheses
	ctxAndLeft         // left operand of &&: an || needs parentheses
	ctxAndRight        // right operand of &&: && and || need parentheses
	ctxNot             // operand of !: && and || need parentheses
)

func (m *Matcher) String() string { return string(m.appendTo(nil, ctxTop)) }
func (a *And) String() string     { return string(a.appendTo(nil, ctxTop)) }
func (o *Or) String() string      { return string(o.appendTo(nil, ctxTop)) }
func (n *Not) String() string     { return string(n.appendTo(nil, ctxTop)) }
func (m *Matcher) appendTo(buf []byte, _ int) []byte {
	buf = append(buf, m.Name...)
	buf = append(buf, '(')
	if !keyed(m.Name) {
		buf = strconv.AppendQuote(buf, m.Value)
		return append(buf, ')')
	}
	buf = strconv.AppendQuote(buf, m.Key)
	// Traefik refuses an empty argument: a Query of no value is written
	// with the name alone, which means the same.
	if m.Name != Query || m.Value != "" {
		buf = append(buf, ", "...)
		buf = strconv.AppendQuote(buf, m.Value)
	}
	return append(buf, ')')
}

func (a *And) appendTo(buf []byte, ctx int) []byte {
	paren := ctx == ctxAndRight || ctx == ctxNot
	if paren {
		buf = append(buf, '(')
	}
	buf = appendExpr(buf, a.Left, ctxAndLeft)
	buf = append(buf, " && "...)
	buf = appendExpr(buf, a.Right, ctxAndRight)
	if paren {
		buf = append(buf, ')')
	}
	return buf
}

func (o *Or) appendTo(buf []byte, ctx int) []byte {
	paren := ctx != ctxTop
	if paren {
		buf = append(buf, '(')
	}
	buf = appendExpr(buf, o.Left, ctxTop)
	buf = append(buf, " || "...)
	buf = appendExpr(buf, o.Right, ctxOrRight)
	if paren {
		buf = append(buf, ')')
	}
	return buf
}

func (n *Not) appendTo(buf []byte, _ int) []byte {
	buf = append(buf, '!')
	return appendExpr(buf, n.Expr, ctxNot)
}

func appendExpr(buf []byte, e Expr, ctx int) []byte {
	if e == nil {
		return append(buf, "<nil>"...)
	}
	return e.appendTo(buf, ctx)
}
